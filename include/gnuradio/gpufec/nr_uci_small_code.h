/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_NR_UCI_SMALL_CODE_H
#define INCLUDED_GR_GPUFEC_NR_UCI_SMALL_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>

namespace gpufec {
class nr_uci_small_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief 5G NR small-block UCI code (TS 38.212 5.3.3) with its rate matching (5.4.3).
 * \ingroup gpufec
 *
 * \details
 * \p k = 1..11 UCI bits: K = 1 repetition, K = 2 simplex (placeholders 'x'/'y' for
 * modulation order \p qm = 1, 2, 4, 6 or 8), K = 3..11 the (32, K) Reed-Muller code of
 * Table 5.3.3.3-1. The N mother bits are repeated cyclically to \p e = 1..65536
 * transmitted bits (E < N truncates). Without a scrambler, 'x' placeholders are sent
 * as 1 and 'y' as a copy of the previous bit.
 */
class GPUFEC_API nr_uci_small_code : public code
{
public:
    typedef std::shared_ptr<nr_uci_small_code> sptr;

    static sptr make(int k = 11, int e = 32, int qm = 1);

    virtual int k() const = 0;  //!< UCI bits per frame
    virtual int e() const = 0;  //!< transmitted bits per frame
    virtual int qm() const = 0; //!< modulation order (placeholders of K = 1, 2)
    virtual int mother_length() const = 0; //!< N: Qm, 3 Qm or 32
    //! The core-library code (C++ only).
    virtual const ::gpufec::nr_uci_small_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_NR_UCI_SMALL_CODE_H */

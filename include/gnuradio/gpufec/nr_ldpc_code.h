/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GR_GPUFEC_NR_LDPC_CODE_H
#define INCLUDED_GR_GPUFEC_NR_LDPC_CODE_H

#include <gnuradio/gpufec/api.h>
#include <gnuradio/gpufec/code.h>

namespace gpufec {
class nr_ldpc_code;
}

namespace gr {
namespace gpufec {

/*!
 * \brief 5G NR LDPC code (TS 38.212 5.3.2) with rate matching from redundancy
 * version 0 (5.4.2.1).
 * \ingroup gpufec
 *
 * \details
 * \p bg: base graph 1 or 2; \p z: one of the 51 lifting sizes (2..384, Table
 * 5.3.2-1); \p k: information bits per frame, 0 = K_b * Z (22 Z for BG1, 10 Z for
 * BG2); fewer are filler bits (known zeros, not transmitted). The first 2Z systematic
 * bits are punctured. \p e: transmitted bits per frame, 0 = the whole circular buffer
 * minus fillers; otherwise the first e bits read from the circular buffer (repeating
 * when e is larger).
 */
class GPUFEC_API nr_ldpc_code : public code
{
public:
    typedef std::shared_ptr<nr_ldpc_code> sptr;

    static sptr make(int bg = 1, int z = 384, int k = 0, int e = 0);

    virtual int bg() const = 0;
    virtual int z() const = 0;
    //! Information bits per frame.
    virtual int k() const = 0;
    //! Transmitted bits per frame.
    virtual int e() const = 0;
    //! The core-library code (C++ only).
    virtual const ::gpufec::nr_ldpc_code& core() const = 0;
};

} // namespace gpufec
} // namespace gr

#endif /* INCLUDED_GR_GPUFEC_NR_LDPC_CODE_H */

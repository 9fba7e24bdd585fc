/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufec developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// ACS kernels of viterbi_cpu.cc. Included once per instruction set, each time inside
// its own namespace under its own `#pragma GCC target`, so every instantiation is
// compiled (and its intrinsics inlined) for exactly that ISA. No include guard on
// purpose. Expects group_job, simd, k7_outtab, and a Mask type in scope.

template <class V, class VU>
__attribute__((always_inline)) inline V vadd(V a, V b)
{
    return (V)((VU)a + (VU)b);
}
template <class V, class VU>
__attribute__((always_inline)) inline V vsub(V a, V b)
{
    return (V)((VU)a - (VU)b);
}

template <int K, int N, int W, class Mask, bool Fixed>
__attribute__((always_inline)) inline void acs_group(group_job<W>& job)
{
    typedef typename simd<W>::v v;
    typedef typename simd<W>::vu vu;
    typedef typename simd<W>::vb vb;
    typedef typename simd<W>::word word;
    constexpr int S = 1 << (K - 1);
    constexpr int half = S / 2;
    constexpr int C = 1 << N;
    alignas(64) v pm_buf[2][S];
    v* pm = pm_buf[0];
    v* npm = pm_buf[1];
    pm[0] = v{};
    v init_other;
    std::memcpy(&init_other, job.init_other, sizeof(init_other));
    for (int s = 1; s < S; s++)
        pm[s] = init_other;
    uint8_t out[2 * S];
    if (!Fixed)
        std::memcpy(out, job.outtab, sizeof(out));

    for (int j = 0; j < job.nstages; j++) {
        const int8_t* l8 = job.llr + static_cast<size_t>(j) * N * W;
        v llr[N];
        for (int i = 0; i < N; i++) {
            vb b;
            std::memcpy(&b, l8 + i * W, sizeof(b));
            llr[i] = __builtin_convertvector(b, v);
        }
        // Branch metrics per codeword, minus pm[0] (the per-stage renormalisation).
        v bm[C];
        const v renorm = pm[0];
        for (int c = 0; c < C / 2; c++) {
            v m = v{};
            for (int i = 0; i < N; i++)
                m = ((c >> i) & 1) ? vsub<v, vu>(m, llr[i]) : vadd<v, vu>(m, llr[i]);
            bm[c] = vsub<v, vu>(m, renorm);
            bm[(C - 1) ^ c] = vsub<v, vu>(vsub<v, vu>(v{}, m), renorm);
        }
        word* dec = job.decisions + static_cast<size_t>(j) * half;
#pragma GCC unroll 32
        for (int p = 0; p < half; p++) {
            const v a = pm[p];
            const v c = pm[p + half];
            const int o0e = Fixed ? k7_outtab.out[2 * p] : out[2 * p];
            const int o0o = Fixed ? k7_outtab.out[2 * p + 1] : out[2 * p + 1];
            const int o1e = Fixed ? k7_outtab.out[2 * (p + half)] : out[2 * (p + half)];
            const int o1o =
                Fixed ? k7_outtab.out[2 * (p + half) + 1] : out[2 * (p + half) + 1];
            const v m0e = vadd<v, vu>(a, bm[o0e]);
            const v m1e = vadd<v, vu>(c, bm[o1e]);
            const v m0o = vadd<v, vu>(a, bm[o0o]);
            const v m1o = vadd<v, vu>(c, bm[o1o]);
            const v ne = m1e > m0e ? m1e : m0e;
            const v no = m1o > m0o ? m1o : m0o;
            npm[2 * p] = ne;
            npm[2 * p + 1] = no;
            dec[p] = Mask::keep(m0e, ne, m0o, no);
        }
        std::swap(pm, npm);
        if (job.end_flags[j + 1]) {
            // Best state, lowest index on ties.
            v best = pm[0];
            v idx = v{};
            for (int s = 1; s < S; s++) {
                const v gt = pm[s] > best;
                best = gt ? pm[s] : best;
                idx = gt ? (v{} + static_cast<int16_t>(s)) : idx;
            }
            for (int l = 0; l < W; l++)
                if (job.lane_len[l] == j + 1)
                    job.best_state[l] = idx[l];
        }
    }
}

template <int W, class Mask>
__attribute__((always_inline)) inline void run_group_impl(group_job<W>& job)
{
    if (job.k7_standard) {
        acs_group<7, 2, W, Mask, true>(job);
        return;
    }
#define GPUFEC_ACS_CASE(K, N)                 \
    case K * 8 + N:                           \
        acs_group<K, N, W, Mask, false>(job); \
        break;
#define GPUFEC_ACS_K(K)   \
    GPUFEC_ACS_CASE(K, 2) \
    GPUFEC_ACS_CASE(K, 3) \
    GPUFEC_ACS_CASE(K, 4)
    switch (job.k * 8 + job.n) {
        GPUFEC_ACS_K(3)
        GPUFEC_ACS_K(4)
        GPUFEC_ACS_K(5)
        GPUFEC_ACS_K(6)
        GPUFEC_ACS_K(7)
        GPUFEC_ACS_K(8)
        GPUFEC_ACS_K(9)
    default:
        throw error("viterbi cpu: unsupported K/n");
    }
#undef GPUFEC_ACS_K
#undef GPUFEC_ACS_CASE
}

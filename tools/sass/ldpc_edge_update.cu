// Static instruction count of the layered min-sum edge update on sm_90 (issue 9's
// roofline, docs/ldpc-gpu-roofline.md): the CPU decoder's int8 arithmetic (R int8,
// L and Q int16 saturating at +/-32000, minima capped at 127, normalised magnitude
// (m * a16) >> 4) for TWO codewords at once in the 16-bit halves of a 32-bit register.
// Not built with the project. Reproduce:
//   nvcc -arch=sm_90 -O3 -cubin -o /tmp/e.cubin tools/sass/ldpc_edge_update.cu
//   cuobjdump -sass /tmp/e.cubin | grep -cE '^\s+/\*[0-9a-f]{4}\*/'
// and compare the kernels for DEGREE 8 and 16: the difference / 8 is the cost of one
// packed edge update (two edge updates) in both passes.
#include <cstdint>

__device__ __forceinline__ uint32_t clamp_app(uint32_t x)
{
    // +/-32000 per 16-bit lane (L - R and Q + R stay within int16 before the clamp).
    return __vmaxs2(__vmins2(x, 0x7d007d00u), 0x83008300u);
}

template <int DEGREE>
__global__ void row_update(uint32_t* app,        // int16x2, in shared memory in a kernel
                           const int* positions, // the row's DEGREE positions
                           uint32_t* r_state,    // R_old / R_new, int16x2 per edge
                           int a16)              // round(16 alpha)
{
    __shared__ uint32_t l_smem[4096];
    const int t = threadIdx.x;
    for (int i = t; i < 4096; i += blockDim.x)
        l_smem[i] = app[i];
    __syncthreads();
    uint32_t q[DEGREE];
    uint32_t min1 = 0x007f007fu, min2 = 0x007f007fu, idx = 0, sign = 0;
#pragma unroll
    for (int j = 0; j < DEGREE; ++j) {
        const int v = (positions[j] + t) & 4095;
        const uint32_t r_old = r_state[j * blockDim.x + t];
        q[j] = clamp_app(__vsub2(l_smem[v], r_old));
        const uint32_t m = __vmins2(__vabsss2(q[j]), 0x007f007fu);
        const uint32_t lt1 = __vcmplts2(m, min1); // 0xffff where m < min1 (strict)
        min2 = (min1 & lt1) | (__vmins2(min2, m) & ~lt1);
        min1 = __vmins2(min1, m);
        idx = (idx & ~lt1) | ((j * 0x00010001u) & lt1);
        sign ^= q[j];
    }
    // Normalised magnitudes: (m * a16) >> 4 per lane (m <= 127, a16 <= 16).
    const uint32_t mag1 =
        (((min1 & 0xffffu) * a16) >> 4) | ((((min1 >> 16) * a16) >> 4) << 16);
    const uint32_t mag2 =
        (((min2 & 0xffffu) * a16) >> 4) | ((((min2 >> 16) * a16) >> 4) << 16);
#pragma unroll
    for (int j = 0; j < DEGREE; ++j) {
        const uint32_t eq = __vcmpeq2(idx, j * 0x00010001u);
        const uint32_t mag = (mag2 & eq) | (mag1 & ~eq);
        const uint32_t neg = __vcmplts2(q[j] ^ sign, 0); // 0xffff where R < 0
        const uint32_t r_new = __vsub2(mag ^ neg, neg);  // +/-mag per lane
        const int v = (positions[j] + t) & 4095;
        l_smem[v] = clamp_app(__vadd2(q[j], r_new));
        r_state[j * blockDim.x + t] = r_new;
    }
    __syncthreads();
    for (int i = t; i < 4096; i += blockDim.x)
        app[i] = l_smem[i];
}

template __global__ void row_update<8>(uint32_t*, const int*, uint32_t*, int);
template __global__ void row_update<16>(uint32_t*, const int*, uint32_t*, int);

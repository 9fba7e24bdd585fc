// What the 16x2 integer intrinsics compile to on sm_90 (for the LDPC update, issue 9):
//   nvcc -arch=sm_90 -O3 -cubin -o /tmp/p.cubin tools/sass/packed16_ops.cu &&
//   cuobjdump -sass /tmp/p.cubin | grep -E "Function|^\s+/\*[0-9a-f]{4}\*/" | grep -vE "NOP|EXIT|BRA|S2R|LDG|STG|ULDC|MOV|IMAD.WIDE"
#include <cstdint>
#define OP(name, expr)                                                               \
    __global__ void name(const unsigned* a, const unsigned* b, const unsigned* c,   \
                         unsigned* o)                                               \
    {                                                                              \
        const int i = threadIdx.x;                                                 \
        const unsigned x = a[i], y = b[i], z = c[i];                               \
        o[i] = (expr);                                                             \
    }
OP(k_vadd2, __vadd2(x, y))
OP(k_vsub2, __vsub2(x, y))
OP(k_vneg2, __vneg2(x))
OP(k_vabs2, __vabs2(x))
OP(k_vabsss2, __vabsss2(x))
OP(k_vmins2, __vmins2(x, y))
OP(k_vminu2, __vminu2(x, y))
OP(k_viaddmax_s16x2, __viaddmax_s16x2(x, y, z))
OP(k_viaddmin_s16x2, __viaddmin_s16x2(x, y, z))
OP(k_vimax3_s16x2, __vimax3_s16x2(x, y, z))
OP(k_vimin3_u16x2, __vimin3_u16x2(x, y, z))
OP(k_vimax_s16x2_relu, __vimax_s16x2_relu(x, y))
OP(k_vcmpeq2, __vcmpeq2(x, y))
OP(k_vcmplts2, __vcmplts2(x, y))
OP(k_vsetlts2, __vsetlts2(x, y))
OP(k_vibmax_s16x2, ([&] { bool p, q; unsigned r = __vibmax_s16x2(x, y, &p, &q); return r + p + 2 * q; })())
// The min-sum box-plus of two half pairs, sign(a) sign(b) min(|a|, |b|), in one
// instruction (PTX 7.2, sm_86+): HMNMX2.XORSIGN R, |a|, |b| on sm_90 (2026-11-30).
OP(k_hmin_xorsign_abs, ([&] { unsigned r; asm("min.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y)); return r; })())

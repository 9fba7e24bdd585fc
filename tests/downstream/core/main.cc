// Downstream use of the installed core: encode a frame, decode it through the registry
// on "auto" (the GPU when there is one) with the batching engine, compare the bits.
#include <gpufec/backends.h>
#include <gpufec/engine.h>
#include <gpufec/viterbi.h>
#include <cstdio>
#include <vector>

int main()
{
    const gpufec::conv_code code(512);
    std::vector<uint8_t> info(code.frame_bits()), coded(code.coded_bits());
    for (size_t i = 0; i < info.size(); ++i)
        info[i] = uint8_t((i * 7 + i / 3) & 1);
    gpufec::conv_encode(code, info.data(), info.size(), coded.data());
    std::vector<float> llrs(coded.size());
    for (size_t i = 0; i < coded.size(); ++i)
        llrs[i] = coded[i] ? -4.0f : 4.0f;
    gpufec::batch_engine engine(
        gpufec::make_decoder(code, gpufec::viterbi_options{}, "auto"), {});
    engine.submit(llrs.data(), llrs.size(), 0);
    gpufec::completed_frame out;
    if (!engine.pop_wait(out))
        return 1;
    std::vector<uint8_t> bits(out.nbits);
    gpufec::unpack_bits(out.packed, bits.data(), bits.size());
    std::printf("%s: %s\n", engine.decoder().name().c_str(),
                bits == info ? "ok" : "MISMATCH");
    return bits == info ? 0 : 1;
}

// Downstream use of the installed GNU Radio module: build a Viterbi decoder block.
#include <gnuradio/gpufec/conv_code.h>
#include <gnuradio/gpufec/viterbi_decoder.h>
#include <gnuradio/top_block.h>
#include <cstdio>

int main()
{
    auto code = gr::gpufec::conv_code::make(256);
    auto decoder = gr::gpufec::viterbi_decoder::make(code, "float", "", "cpu");
    auto tb = gr::make_top_block("downstream");
    std::printf("%s on %s: ok\n", decoder->name().c_str(), code->describe().c_str());
    return 0;
}

# Writes OUT with `#define GPUFEC_GIT_COMMIT "<sha>"` at build time (not configure time),
# rewriting it only when the commit changes. GPUFEC_COMMIT in the environment wins (a
# copy of the tree without .git, e.g. on the GPU machine).
if(DEFINED ENV{GPUFEC_COMMIT} AND NOT "$ENV{GPUFEC_COMMIT}" STREQUAL "")
    set(commit "$ENV{GPUFEC_COMMIT}")
else()
    execute_process(COMMAND git -C ${SRC} rev-parse --short HEAD
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT commit)
    set(commit "unknown")
endif()
set(text "#define GPUFEC_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
    file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
    file(WRITE ${OUT} "${text}")
endif()

find_package(PkgConfig)

PKG_CHECK_MODULES(PC_GR_GPUFEC gnuradio-gpufec)

FIND_PATH(
    GR_GPUFEC_INCLUDE_DIRS
    NAMES gnuradio/gpufec/api.h
    HINTS $ENV{GPUFEC_DIR}/include
        ${PC_GPUFEC_INCLUDEDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/include
          /usr/local/include
          /usr/include
)

FIND_LIBRARY(
    GR_GPUFEC_LIBRARIES
    NAMES gnuradio-gpufec
    HINTS $ENV{GPUFEC_DIR}/lib
        ${PC_GPUFEC_LIBDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/lib
          ${CMAKE_INSTALL_PREFIX}/lib64
          /usr/local/lib
          /usr/local/lib64
          /usr/lib
          /usr/lib64
          )

include("${CMAKE_CURRENT_LIST_DIR}/gnuradio-gpufecTarget.cmake")

INCLUDE(FindPackageHandleStandardArgs)
FIND_PACKAGE_HANDLE_STANDARD_ARGS(GR_GPUFEC DEFAULT_MSG GR_GPUFEC_LIBRARIES GR_GPUFEC_INCLUDE_DIRS)
MARK_AS_ADVANCED(GR_GPUFEC_LIBRARIES GR_GPUFEC_INCLUDE_DIRS)

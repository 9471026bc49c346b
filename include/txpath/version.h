/*
 * txpath/version.h - which txpath this is.
 */
#ifndef TXPATH_VERSION_H
#define TXPATH_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (the project's, as CMake
 * knows it; the shared library's SONAME carries MAJOR).  Static storage. */
const char *txp_version(void);

#ifdef __cplusplus
}
#endif

#endif

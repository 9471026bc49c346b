/*
 * version.c - txp_version(): TXP_VERSION, the project's version, comes
 * from CMake (project(... VERSION ...)).
 */
#include "txpath/version.h"

const char *txp_version(void)
{
	return TXP_VERSION;
}

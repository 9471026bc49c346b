/*
 * modern_sync.c - examples/drivers/modern_locked.c, unchanged, with its
 * smp_mb() spelled as the compiler's full barrier, __sync_synchronize()
 * (mfence on x86, dmb ish on arm64), as a driver carried from user space
 * or an old tree might define it.  The same barriers in the same places:
 * the same verdicts are due as for modern_locked.c.
 */
#include "txpath/linux.h"

#undef smp_mb
#define smp_mb() __sync_synchronize()

#include "../../../examples/drivers/modern_locked.c"

/* <linux/netdevice.h> of a driver built with `txpath config --cflags`: the
 * user-space header of that name (its constants), then the kernel's
 * names, mapped onto txpath's API (txpath/kernel.h). */
#include_next <linux/netdevice.h>
#include <txpath/kernel.h>

/* <net/netdev_queues.h> of a driver built with `txpath config --cflags`:
 * the lockless stop/wake helpers (txpath/driver.h), with the rest of the
 * kernel's names (txpath/kernel.h). */
#include <txpath/kernel.h>

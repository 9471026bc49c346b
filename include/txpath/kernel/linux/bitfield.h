/* <linux/bitfield.h> of a driver built with `txpath config --cflags`: the
 * kernel's names, mapped onto txpath's API (txpath/kernel.h). */
#include <txpath/kernel.h>

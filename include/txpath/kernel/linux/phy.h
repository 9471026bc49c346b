/* <linux/phy.h> of a driver built with `txpath config --cflags`: the
 * kernel's names, mapped onto txpath's API or stubbed (txpath/kernel.h,
 * txpath/kernel_rest.h). */
#include <txpath/kernel.h>

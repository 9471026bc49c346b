/*
 * dma.h - the explorer's record of a plugin's DMA mappings (check build
 * only; txpath/nic.h): every mapping from its map to its unmap, and every
 * read the NIC model makes, judged at the end of an execution.
 */
#ifndef TXP_CHECK_DMA_H
#define TXP_CHECK_DMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A new execution: forget the last one's mappings and misuse. */
void check_dma_begin(void);
/* len bytes at addr mapped (site: the driver's function). */
void check_dma_map(uint64_t addr, size_t len, const char *site);
/* ... unmapped: a mapping at addr that is not mapped is a misuse. */
void check_dma_unmap(uint64_t addr, size_t len, const char *site);
/* The NIC read len bytes at addr through descriptor desc: unless a
 * mapping holds them, a misuse. */
void check_dma_read(uint64_t addr, size_t len, unsigned desc);
/*
 * After the device closed: the first misuse ("dma-use-after-unmap",
 * "dma-double-unmap"), else a mapping left ("dma-never-unmapped"), as
 * *kind with what happened in detail; false if none.
 */
bool check_dma_verdict(const char **kind, char *detail, size_t len);

#endif

/*
 * dma.c - the explorer's record of a plugin's DMA mappings (check build
 * only).  Not instrumented: the explorer's own bookkeeping, which the
 * contexts reach between scheduling points (they run one at a time).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check/dma.h"

/* Mappings followed at once; an unmapped one's slot is reused when the
 * table is full (a scenario maps at most a ring's worth at a time). */
#define DMA_MAPS 1024

struct mapping {
	uint64_t addr;
	size_t len;
	const char *mapped_at, *unmapped_at;	/* unmapped_at NULL: mapped */
	bool used;
};

static struct mapping maps[DMA_MAPS];
static unsigned nmaps;
static const char *misuse_kind;
static char misuse[300];

void check_dma_begin(void)
{
	nmaps = 0;
	misuse_kind = NULL;
}

static void misused(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void misused(const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (misuse_kind)
		return;
	misuse_kind = kind;
	va_start(ap, fmt);
	vsnprintf(misuse, sizeof(misuse), fmt, ap);
	va_end(ap);
}

/* The latest mapping at addr, mapped or not; NULL if none. */
static struct mapping *latest_at(uint64_t addr, bool mapped_only)
{
	for (unsigned i = nmaps; i-- > 0;)
		if (maps[i].used && maps[i].addr == addr && (!mapped_only || !maps[i].unmapped_at))
			return &maps[i];
	return NULL;
}

static struct mapping *free_slot(void)
{
	if (nmaps < DMA_MAPS)
		return &maps[nmaps++];
	for (unsigned i = 0; i < DMA_MAPS; i++)
		if (maps[i].unmapped_at)
			return &maps[i];
	return NULL;
}

void check_dma_map(uint64_t addr, size_t len, const char *site)
{
	struct mapping *m = free_slot();

	if (m)
		*m = (struct mapping){ addr, len, site, NULL, true };
}

void check_dma_unmap(uint64_t addr, size_t len, const char *site)
{
	struct mapping *m = latest_at(addr, true);

	if (m) {
		m->unmapped_at = site;
		return;
	}
	m = latest_at(addr, false);
	if (m)
		misused("dma-double-unmap", "%s: a mapping of %zu bytes unmapped again, already "
			"unmapped in %s", site, len, m->unmapped_at);
	else
		misused("dma-double-unmap", "%s: %zu bytes unmapped, never mapped", site, len);
}

void check_dma_read(uint64_t addr, size_t len, unsigned desc)
{
	struct mapping *m;

	for (unsigned i = 0; i < nmaps; i++) {
		m = &maps[i];
		if (m->used && !m->unmapped_at && addr >= m->addr && addr + len <= m->addr + m->len)
			return;
	}
	m = latest_at(addr, false);
	if (!m)
		misused("dma-use-after-unmap", "the NIC read %zu bytes through descriptor %u at an "
			"address never mapped", len, desc);
	else if (m->unmapped_at)
		misused("dma-use-after-unmap", "the NIC read %zu bytes through descriptor %u, "
			"unmapped in %s", len, desc, m->unmapped_at);
	else
		misused("dma-use-after-unmap", "the NIC read %zu bytes through descriptor %u, past "
			"the %zu bytes mapped in %s", len, desc, m->len, m->mapped_at);
}

bool check_dma_verdict(const char **kind, char *detail, size_t len)
{
	if (misuse_kind) {
		*kind = misuse_kind;
		snprintf(detail, len, "%s", misuse);
		return true;
	}
	for (unsigned i = 0; i < nmaps; i++) {
		if (maps[i].used && !maps[i].unmapped_at) {
			*kind = "dma-never-unmapped";
			snprintf(detail, len, "%zu bytes mapped in %s, still mapped when the "
				 "device was down", maps[i].len, maps[i].mapped_at);
			return true;
		}
	}
	return false;
}

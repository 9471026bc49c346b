/*
 * test_pkt_bytes.c - packets that carry data: pools with head buffers
 * (their own or the caller's area), headroom, put/push, fragments, the
 * user's own buffers released by the destructor, the offload fields zero
 * in every packet a pool gives, and the gather a driver does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/pkt.h"

/* Every packet of a buffer pool has its own buffer of the size asked,
 * data at the headroom, nothing in it; buffers do not overlap. */
static void test_pool_buffers(void **state)
{
	struct txp_pkt_pool_cfg cfg = { .capacity = 8, .buf_size = 300, .headroom = 40 };
	struct txp_pkt_pool *pool = txp_pkt_pool_create_cfg(&cfg);
	struct txp_pkt *p[8];

	(void)state;
	assert_non_null(pool);
	assert_int_equal(txp_pkt_pool_alloc_bulk(pool, p, 8), 8);
	for (int i = 0; i < 8; i++) {
		assert_non_null(p[i]->buf);
		assert_int_equal(p[i]->buf_size, 300);
		assert_ptr_equal(p[i]->data, p[i]->buf + 40);
		assert_int_equal(p[i]->head_len, 0);
		assert_int_equal(p[i]->len, 0);
		assert_int_equal(txp_pkt_headroom(p[i]), 40);
		assert_int_equal(txp_pkt_tailroom(p[i]), 260);
		memset(p[i]->buf, i, 300);
	}
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 300; k++)
			assert_int_equal(p[i]->buf[k], i);
	for (int i = 0; i < 8; i++)
		txp_pkt_free(p[i]);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* put appends, push prepends; neither goes past the buffer. */
static void test_put_push(void **state)
{
	struct txp_pkt_pool_cfg cfg = { .capacity = 1, .buf_size = 100, .headroom = 14 };
	struct txp_pkt_pool *pool = txp_pkt_pool_create_cfg(&cfg);
	struct txp_pkt *p = txp_pkt_pool_alloc(pool);
	unsigned char *payload, *hdr;

	(void)state;
	payload = txp_pkt_put(p, 80);
	assert_ptr_equal(payload, p->buf + 14);
	memset(payload, 0xaa, 80);
	assert_null(txp_pkt_put(p, 7));		/* 6 left */
	assert_non_null(txp_pkt_put(p, 6));
	hdr = txp_pkt_push(p, 14);
	assert_ptr_equal(hdr, p->buf);
	assert_null(txp_pkt_push(p, 1));
	assert_int_equal(p->head_len, 100);
	assert_int_equal(p->len, 100);
	assert_true(txp_pkt_bytes_ok(p));
	/* A reallocated packet has its buffer back, empty. */
	txp_pkt_free(p);
	p = txp_pkt_pool_alloc(pool);
	assert_ptr_equal(p->data, p->buf + 14);
	assert_int_equal(p->head_len, 0);
	txp_pkt_free(p);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* The head then the fragments, in order; a packet whose lengths do not
 * add up, or that does not fit, is not gathered. */
static void test_gather_frags(void **state)
{
	struct txp_pkt *p = txp_pkt_alloc();
	char a[] = "head:", b[] = "one,", c[] = "two";
	char out[32];

	(void)state;
	assert_int_equal(txp_pkt_attach_head(p, a, sizeof(a), 0, 5), 0);
	assert_int_equal(txp_pkt_add_frag(p, b, 4), 0);
	assert_int_equal(txp_pkt_add_frag(p, c, 3), 0);
	assert_int_equal(p->len, 12);
	assert_int_equal(p->nr_frags, 2);
	assert_int_equal(p->data_len, 7);	/* skb->data_len: the fragments' */
	memset(out, 0, sizeof(out));
	assert_int_equal(txp_pkt_gather(p, out, sizeof(out)), 12);
	assert_string_equal(out, "head:one,two");
	assert_int_equal(txp_pkt_gather(p, out, 11), 0);	/* too small */
	p->len = 13;
	assert_false(txp_pkt_bytes_ok(p));
	assert_int_equal(txp_pkt_gather(p, out, sizeof(out)), 0);
	p->len = 12;
	p->frags[1].data = NULL;
	assert_false(txp_pkt_bytes_ok(p));
	for (int i = p->nr_frags; i < TXP_MAX_FRAGS; i++)
		assert_int_equal(txp_pkt_add_frag(p, c, 0), 0);
	assert_int_equal(txp_pkt_add_frag(p, c, 1), -ENOSPC);
	assert_int_equal(txp_pkt_attach_head(p, a, 4, 2, 3), -EINVAL);
	assert_int_equal(txp_pkt_attach_head(p, a, sizeof(a), 0, 5), 0);
	assert_int_equal(p->data_len, 0);
	txp_pkt_free(p);
}

/* A packet with no bytes (what sim and null take) is not a frame. */
static void test_header_only(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(2);
	struct txp_pkt *p = txp_pkt_pool_alloc(pool);

	(void)state;
	assert_null(p->data);
	p->len = 64;
	assert_false(txp_pkt_bytes_ok(p));
	assert_null(txp_pkt_put(p, 1));
	txp_pkt_free(p);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* A pool over the caller's area carves it in order, buf_size apart. */
static void test_pool_area(void **state)
{
	static unsigned char area[4 * 256];
	struct txp_pkt_pool_cfg cfg = { .capacity = 4, .buf_size = 256, .area = area };
	struct txp_pkt_pool *pool = txp_pkt_pool_create_cfg(&cfg);
	struct txp_pkt *p[5];
	unsigned seen = 0;

	(void)state;
	assert_non_null(pool);
	assert_int_equal(txp_pkt_pool_alloc_bulk(pool, p, 5), 4);
	for (int i = 0; i < 4; i++) {
		ptrdiff_t off = p[i]->buf - area;

		assert_true(off >= 0 && off % 256 == 0 && off < 4 * 256);
		seen |= 1u << (off / 256);
	}
	assert_int_equal(seen, 0xf);
	for (int i = 0; i < 4; i++)
		txp_pkt_free(p[i]);
	assert_true(txp_pkt_pool_destroy(pool));
	/* An area needs a capacity; headroom must leave room. */
	cfg.capacity = 0;
	assert_null(txp_pkt_pool_create_cfg(&cfg));
	cfg.capacity = 4;
	cfg.headroom = 256;
	assert_null(txp_pkt_pool_create_cfg(&cfg));
}

/* The user's own buffer, released by the destructor once, when the
 * packet is freed. */
static int released;

static void release_user_buf(struct txp_pkt *pkt)
{
	free(pkt->sk);
	released++;
}

static void test_user_buffer_released(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(1);
	struct txp_pkt *p = txp_pkt_pool_alloc(pool);
	unsigned char *mine = malloc(128);

	(void)state;
	assert_int_equal(txp_pkt_attach_head(p, mine, 128, 16, 100), 0);
	p->destructor = release_user_buf;
	p->sk = mine;
	assert_true(txp_pkt_bytes_ok(p));
	released = 0;
	txp_pkt_free(p);
	assert_int_equal(released, 1);
	/* Back from the pool, the packet is header-only again. */
	p = txp_pkt_pool_alloc(pool);
	assert_null(p->data);
	assert_null(p->destructor);
	txp_pkt_free(p);
	assert_int_equal(released, 1);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* A pool's packet has the kernel's offload fields zero (no GSO, no
 * checksum offload, no VLAN tag), new or back from its last user, who
 * set them. */
static void test_pool_offload_zero(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(1);
	struct txp_pkt *p = txp_pkt_pool_alloc(pool);
	static const struct txp_pkt zero;

	(void)state;
	assert_memory_equal(&p->data_len, &zero.data_len,
			    offsetof(struct txp_pkt, cb) - offsetof(struct txp_pkt, data_len));
	p->data_len = 8;
	p->gso_size = 1448;
	p->gso_segs = 3;
	p->gso_type = 1;
	p->csum_start = 34;
	p->csum_offset = 16;
	p->protocol = 8;
	p->vlan_proto = 0x81;
	p->vlan_tci = 5;
	p->ip_summed = 3;
	p->no_fcs = 1;
	p->tx_flags = 1;
	txp_pkt_free(p);
	p = txp_pkt_pool_alloc(pool);
	assert_memory_equal(&p->data_len, &zero.data_len,
			    offsetof(struct txp_pkt, cb) - offsetof(struct txp_pkt, data_len));
	txp_pkt_free(p);
	assert_true(txp_pkt_pool_destroy(pool));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_buffers),
		cmocka_unit_test(test_put_push),
		cmocka_unit_test(test_gather_frags),
		cmocka_unit_test(test_header_only),
		cmocka_unit_test(test_pool_area),
		cmocka_unit_test(test_user_buffer_released),
		cmocka_unit_test(test_pool_offload_zero),
	};

	return txp_test_main(argc, argv, tests);
}

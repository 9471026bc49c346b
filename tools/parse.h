/*
 * parse.h - the command line's values from the user's strings: pure
 * parsers that neither print nor exit.  Each returns true with the value,
 * or false with a one-line message in msg (the words usage_error prints
 * after "txpath CMD: "), so that a fuzzer and a unit test can call them.
 *
 * msg is always terminated; a message longer than len is cut.  Callers
 * give PARSE_MSG_LEN, which holds any message about a value of up to
 * about 4000 bytes whole.
 */
#ifndef TXP_TOOL_PARSE_H
#define TXP_TOOL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PARSE_MSG_LEN 4096

/* A whole decimal number in [min, max]: digits only, nothing before or
 * after them. */
bool parse_str_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v,
		   char *msg, size_t len);
/* A number of seconds in (0, 86400]. */
bool parse_str_seconds(const char *opt, const char *s, double *v, char *msg, size_t len);
/* A decimal number in [min, max] (out of range: too small to be told
 * from 0, or too large for a double, included). */
bool parse_str_double(const char *opt, const char *s, double min, double max, double *v,
		      char *msg, size_t len);
/* --frags: "N" or "MIN-MAX" fragments per packet, MIN <= MAX <= TXP_MAX_FRAGS. */
bool parse_str_frags(const char *s, unsigned *min, unsigned *max, char *msg, size_t len);
/* A MAC address, six hex pairs joined by colons. */
bool parse_str_mac(const char *opt, const char *s, uint8_t mac[6], char *msg, size_t len);
/* ... that a frame may come from: unicast (the group bit clear). */
bool parse_str_src_mac(const char *opt, const char *s, uint8_t mac[6], char *msg, size_t len);
/* A name (an interface, a path): not empty, what (e.g. "an interface
 * name") being what the message says it needs. */
bool parse_str_name(const char *opt, const char *s, const char *what, char *msg, size_t len);
/* An IPv4 address in the benchmarking range 198.18.0.0/15. */
bool parse_str_bench_ip(const char *opt, const char *s, uint32_t *ip, char *msg, size_t len);

#endif

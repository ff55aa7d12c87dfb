/* The PM4 stream walker: headers, parity, resynchronisation after garbage, truncated packets,
 * type-4 register writes, nested IBs / draw-state groups and the output budget. The type-7
 * payloads are decoded in pm4_packets.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "pm4_decode_priv.h"

#define DEFAULT_MAX_DEPTH 3u
#define DEFAULT_MAX_DWORDS (1ull << 24)
#define PAYLOAD_INDENT "        "

static void indent(struct pm4_dec *d)
{
	for (unsigned i = 0; i < d->depth; i++)
		fputs("    ", d->out);
}

void pm4_line(struct pm4_dec *d, const char *fmt, ...)
{
	indent(d);
	fputs(PAYLOAD_INDENT, d->out);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->out);
}

const struct pm4_decode_bo *pm4_decode_find_bo(const struct pm4_decode_bo *bos, size_t nr_bos, uint64_t iova)
{
	for (size_t i = 0; i < nr_bos; i++) {
		/* iova - bo.iova < size: no overflow even for BOs at the top of the address space. */
		if (iova >= bos[i].iova && iova - bos[i].iova < bos[i].size)
			return &bos[i];
	}
	return NULL;
}

void pm4_decode_format_addr(char *buf, size_t len, const struct pm4_decode_bo *bos, size_t nr_bos,
			    uint64_t iova)
{
	const struct pm4_decode_bo *bo = pm4_decode_find_bo(bos, nr_bos, iova);
	if (bo && bo->name && bo->name[0])
		snprintf(buf, len, "0x%" PRIx64 " (bo %u %s +0x%" PRIx64 ")", iova, bo->id, bo->name, iova - bo->iova);
	else if (bo)
		snprintf(buf, len, "0x%" PRIx64 " (bo %u +0x%" PRIx64 ")", iova, bo->id, iova - bo->iova);
	else if (nr_bos)
		snprintf(buf, len, "0x%" PRIx64 " (no bo)", iova);
	else
		snprintf(buf, len, "0x%" PRIx64, iova);
}

void pm4_line_addr(struct pm4_dec *d, const char *name, uint64_t iova)
{
	char a[160];
	pm4_decode_format_addr(a, sizeof(a), d->opts->bos, d->opts->nr_bos, iova);
	pm4_line(d, "%s: %s", name, a);
}

void pm4_hexdump(struct pm4_dec *d, const uint32_t *p, uint32_t from, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 8) {
		char text[8 * 9 + 1];
		size_t used = 0;
		for (uint32_t j = i; j < n && j < i + 8; j++)
			used += (size_t)snprintf(text + used, sizeof(text) - used, " %08x", p[from + j]);
		pm4_line(d, "[%u]%s", from + i, text);
	}
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void decode_stream(struct pm4_dec *d, const uint32_t *dw, size_t n, uint64_t base, unsigned level);

void pm4_follow(struct pm4_dec *d, const char *kind, uint64_t iova, uint64_t size_dw, unsigned level)
{
	const struct pm4_decode_options *o = d->opts;
	if (!o->follow_ibs)
		return;
	if (size_dw == 0) {
		pm4_line(d, "(%s is empty)", kind);
		return;
	}
	if (d->depth >= d->max_depth) {
		pm4_line(d, "(%s not followed: nesting limit %u reached)", kind, d->max_depth);
		return;
	}
	const struct pm4_decode_bo *bo = pm4_decode_find_bo(o->bos, o->nr_bos, iova);
	uint64_t off = bo ? iova - bo->iova : 0;
	if (!bo || !bo->contents || off >= bo->contents_len || bo->contents_len - off < 4) {
		pm4_line(d, "(%s not followed: contents of 0x%" PRIx64 " not available)", kind, iova);
		d->stats->ibs_unavailable++;
		return;
	}
	/* Contents may sit at any byte alignment (a capture file's buffer): copy into dwords. The
	 * IB size field is at most 20 bits and the draw-state count 16, so this stays small. */
	uint64_t avail_dw = (bo->contents_len - off) / 4;
	uint64_t n = size_dw <= avail_dw ? size_dw : avail_dw;
	uint32_t *copy = malloc((size_t)n * 4);
	if (!copy) {
		pm4_line(d, "(%s not followed: out of memory)", kind);
		return;
	}
	const unsigned char *src = (const unsigned char *)bo->contents + off;
	for (uint64_t i = 0; i < n; i++)
		copy[i] = le32(src + 4 * i);
	d->stats->ibs_followed++;
	pm4_line(d, "--- %s at 0x%" PRIx64 ", %" PRIu64 " dwords ---", kind, iova, size_dw);
	if (n < size_dw)
		pm4_line(d, "(only %" PRIu64 " of %" PRIu64 " dwords are available in bo %u)", n, size_dw, bo->id);
	d->depth++;
	decode_stream(d, copy, (size_t)n, iova, level);
	d->depth--;
	pm4_line(d, "--- end of %s ---", kind);
	free(copy);
}

static void header_line(struct pm4_dec *d, uint64_t iova, size_t index, uint32_t hdr, const char *text)
{
	const struct pm4_decode_options *o = d->opts;
	if (o->mark && iova == o->mark_iova) {
		indent(d);
		fputs("ESTIMATED CRASH LOCATION!\n", d->out);
		d->stats->marked = true;
	}
	indent(d);
	fprintf(d->out, "0x%016" PRIx64 " dw %-5zu %08x  %s\n", iova, index, hdr, text);
}

static void decode_type4_payload(struct pm4_dec *d, const struct pm4_pkt *pkt)
{
	for (uint32_t i = 0; i < pkt->count; i++) {
		char nb[48];
		/* Consecutive registers wrap within the header's register field. */
		uint32_t reg = (pkt->reg + i) & PM4_TYPE4_REG_DECODE_MASK;
		const char *name = a6xx_reg_name(reg, nb, sizeof(nb));
		if (name)
			pm4_line(d, "%s (0x%04x) = 0x%08x", name, reg, pkt->p[i]);
		else
			pm4_line(d, "0x%04x = 0x%08x", reg, pkt->p[i]);
	}
}

/* Classifies the dword at dw[0]; false (with why filled in) if it is not a valid header. */
static bool parse_header(uint32_t h, struct pm4_pkt *pkt, const char **why)
{
	if (pm4_is_type4(h)) {
		if (!pm4_type4_parity_ok(h)) {
			*why = "type-4 header with bad parity";
			return false;
		}
		pkt->type7 = false;
		pkt->reg = pm4_type4_reg(h);
		pkt->count = pm4_type4_count(h);
		return true;
	}
	if (pm4_is_type7(h)) {
		if (!pm4_type7_parity_ok(h)) {
			*why = "type-7 header with bad parity";
			return false;
		}
		pkt->type7 = true;
		pkt->opcode = pm4_type7_opcode(h);
		pkt->count = pm4_type7_count(h);
		return true;
	}
	*why = "not a PM4 type-4/type-7 header";
	return false;
}

static void packet_title(const struct pm4_pkt *pkt, uint32_t declared, char *buf, size_t len)
{
	if (!pkt->type7) {
		char nb[48];
		const char *name = a6xx_reg_name(pkt->reg, nb, sizeof(nb));
		if (name)
			snprintf(buf, len, "PKT4 %s (%u regs)", name, declared);
		else
			snprintf(buf, len, "PKT4 0x%04x (%u regs)", pkt->reg, declared);
		return;
	}
	const char *name = pm4_opcode_name(pkt->opcode);
	if (name)
		snprintf(buf, len, "%s (%u dwords)", name, declared);
	else
		snprintf(buf, len, "UNKNOWN_OPCODE_0x%02x (%u dwords)", pkt->opcode, declared);
}

void pm4_decode_describe_header(uint32_t header, char *buf, size_t len)
{
	struct pm4_pkt pkt = { .header = header };
	const char *why = NULL;
	if (parse_header(header, &pkt, &why))
		packet_title(&pkt, pkt.count, buf, len);
	else
		snprintf(buf, len, "?? %s", why);
}

static void decode_stream(struct pm4_dec *d, const uint32_t *dw, size_t n, uint64_t base, unsigned level)
{
	size_t i = 0;
	while (i < n) {
		if (d->budget_left == 0) {
			d->stats->budget_exhausted = true;
			pm4_line(d, "(output budget exhausted: %zu dwords of this stream not decoded)", n - i);
			return;
		}
		/* Unsigned wrap-around is harmless here: the address is only printed and looked up. */
		uint64_t iova = base + 4ull * i;
		uint32_t h = dw[i];
		struct pm4_pkt pkt = { .iova = iova, .header = h, .level = level };
		const char *why = NULL;
		if (!parse_header(h, &pkt, &why)) {
			char text[96];
			snprintf(text, sizeof(text), "?? %s: skipped", why);
			header_line(d, iova, i, h, text);
			d->stats->bad_dwords++;
			d->budget_left--;
			i++; /* resynchronise: the next dword may be a header again */
			continue;
		}
		uint32_t declared = pkt.count;
		size_t avail = n - i - 1;
		uint32_t present = declared <= avail ? declared : (uint32_t)avail;
		char title[96];
		packet_title(&pkt, declared, title, sizeof(title));
		header_line(d, iova, i, h, title);
		d->stats->packets++;
		uint64_t cost = 1ull + present;
		d->budget_left = d->budget_left > cost ? d->budget_left - cost : 0;
		pkt.p = dw + i + 1;
		pkt.count = present;
		if (pkt.type7 && pm4_opcode_kernel_only(pkt.opcode)) {
			pm4_line(d, "!! privileged packet: only the kernel's ringbuffer may execute it");
			d->stats->privileged++;
		}
		if (present < declared) {
			pm4_line(d, "!! truncated: %u of %u payload dwords present before the end of the stream",
				 present, declared);
			d->stats->truncated++;
			pm4_hexdump(d, pkt.p, 0, present);
			return;
		}
		if (pkt.type7)
			pm4_decode_type7_payload(d, &pkt);
		else
			decode_type4_payload(d, &pkt);
		i += 1 + (size_t)declared;
	}
}

int pm4_decode(FILE *out, const uint32_t *dwords, size_t nr_dwords, uint64_t base_iova,
	       const struct pm4_decode_options *opts, struct pm4_decode_stats *stats)
{
	static const struct pm4_decode_options no_opts;
	struct pm4_decode_stats local;
	if (!opts)
		opts = &no_opts;
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	struct pm4_dec d = {
		.out = out,
		.opts = opts,
		.stats = stats,
		.budget_left = opts->max_dwords ? opts->max_dwords : DEFAULT_MAX_DWORDS,
		.max_depth = opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH,
	};
	if (d.max_depth > PM4_DECODE_DEPTH_CAP)
		d.max_depth = PM4_DECODE_DEPTH_CAP;
	decode_stream(&d, dwords, dwords ? nr_dwords : 0, base_iova, opts->top_level ? opts->top_level : 1);
	return ferror(out) ? -1 : 0;
}

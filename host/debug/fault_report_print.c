/* Printing a parsed fault report crashdec-style: summary, the ESTIMATED CRASH LOCATION line, the
 * crashing IB decoded with the crash packet marked (when the report carries its contents), packet
 * dumps, registers, and a plain statement of what the report did not carry. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fault_report.h"
#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "pm4_decode.h"

static const char *kind_name(enum fault_report_kind k)
{
	switch (k) {
	case FAULT_REPORT_PAGEFAULT: return "GPU pagefault";
	case FAULT_REPORT_HANG: return "GPU hang";
	case FAULT_REPORT_CP_ERROR: return "CP error";
	default: return "unknown fault";
	}
}

/* Little-endian bytes to host dwords; NULL on ENOMEM. n_dw words are read from data. */
static uint32_t *to_dwords(const uint8_t *data, size_t n_dw)
{
	uint32_t *w = malloc(n_dw ? n_dw * 4 : 4);
	if (!w)
		return NULL;
	for (size_t i = 0; i < n_dw; i++)
		w[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 | (uint32_t)data[4 * i + 2] << 16 |
		       (uint32_t)data[4 * i + 3] << 24;
	return w;
}

static void describe_header(FILE *out, uint32_t h)
{
	char text[96];
	pm4_decode_describe_header(h, text, sizeof(text));
	fprintf(out, "  header 0x%08x: %s (payload not in the report)\n", h, text);
}

/* last-packets: oldest first, the crash packet marked as crashdec marks it. */
static void print_last_packets(FILE *out, const struct fault_report *r)
{
	fprintf(out, "\nlast packets (oldest first):\n");
	for (size_t i = 0; i < r->nr_packets; i++) {
		const struct fault_report_packet *p = &r->packets[i];
		char text[96];
		if (p->has_header)
			pm4_decode_describe_header(p->header, text, sizeof(text));
		else
			snprintf(text, sizeof(text), "%s", p->name[0] ? p->name : "?");
		bool crash = r->has_crash && p->iova == r->ib_iova + 4ull * r->dword;
		char hdr[12] = "--------";
		if (p->has_header)
			snprintf(hdr, sizeof(hdr), "%08x", p->header);
		fprintf(out, "  IB%u 0x%016" PRIx64 " dw %-5u %s  %s%s\n", p->level, p->iova, p->dword, hdr, text,
			crash ? "   <-- ESTIMATED CRASH LOCATION" : "");
	}
}

/* Decodes the crashing IB from the report's memory, marking the crash packet. False if the
 * report has no contents for it. */
static bool decode_crash_ib(FILE *out, const struct fault_report *r, const struct pm4_decode_bo *bos, size_t nr_bos,
			    bool follow)
{
	const struct pm4_decode_bo *bo = pm4_decode_find_bo(bos, nr_bos, r->ib_iova);
	if (!bo || !bo->contents)
		return false;
	uint64_t off = r->ib_iova - bo->iova;
	if (off >= bo->contents_len)
		return false;
	uint64_t avail = (bo->contents_len - off) / 4;
	uint64_t n = r->ib_size && r->ib_size < avail ? r->ib_size : avail;
	uint32_t *w = to_dwords((const uint8_t *)bo->contents + off, (size_t)n);
	if (!w)
		return false;
	fprintf(out, "\nIB%u at 0x%016" PRIx64 " (%u dwords%s):\n", r->ib_level, r->ib_iova, r->ib_size,
		n < r->ib_size ? ", only part carried by the report" : "");
	struct pm4_decode_options o = {
		.bos = bos, .nr_bos = nr_bos, .follow_ibs = follow, .top_level = r->ib_level ? r->ib_level : 1,
		.mark = true, .mark_iova = r->ib_iova + 4ull * r->dword,
	};
	struct pm4_decode_stats st;
	pm4_decode(out, w, (size_t)n, r->ib_iova, &o, &st);
	if (!st.marked)
		fprintf(out, "(the crash dword %u is not on a packet boundary of the decoded stream)\n", r->dword);
	free(w);
	return true;
}

int fault_report_print(FILE *out, const struct fault_report *r, bool follow_ibs)
{
	/* BOs (not packet dumps) become the decoder's address table. */
	struct pm4_decode_bo *bos = calloc(r->nr_mems ? r->nr_mems : 1, sizeof(*bos));
	if (!bos)
		return -1;
	size_t nr_bos = 0, nr_packets = 0, nr_with_data = 0;
	for (size_t i = 0; i < r->nr_mems; i++) {
		const struct fault_report_mem *m = &r->mems[i];
		if (m->is_packets) {
			nr_packets++;
			continue;
		}
		if (m->data_len)
			nr_with_data++;
		bos[nr_bos++] = (struct pm4_decode_bo){ .iova = m->iova, .size = m->size, .id = (uint32_t)i,
							.name = m->name, .contents = m->data, .contents_len = m->data_len };
	}

	fprintf(out, "fault report: %s\n", kind_name(r->kind));
	if (r->comm[0])
		fprintf(out, "  comm: %s\n", r->comm);
	if (r->revision[0])
		fprintf(out, "  revision: %s\n", r->revision);
	if (r->kind == FAULT_REPORT_PAGEFAULT) {
		char a[160] = "unknown";
		if (r->has_fault_iova)
			pm4_decode_format_addr(a, sizeof(a), bos, nr_bos, r->fault_iova);
		fprintf(out, "  fault iova: %s dir=%s type=%s source=%s\n", a, r->dir[0] ? r->dir : "?",
			r->type[0] ? r->type : "?", r->source[0] ? r->source : "?");
	} else if (r->reason[0]) {
		fprintf(out, "  reason: %s\n", r->reason);
	}
	if (r->has_submit)
		fprintf(out, "  submit: queue %u fence %u prio %u\n", r->queue, r->fence, r->prio);

	if (r->has_crash) {
		if (r->has_guest && r->shadow_ib_iova == r->ib_iova) {
			fprintf(out, "ESTIMATED CRASH LOCATION! IB%u 0x%016" PRIx64 " (bo %u +0x%" PRIx64 ") dword %u: %s\n",
				r->ib_level, r->guest_ib_iova, r->guest_bo, r->guest_bo_offset, r->dword,
				r->packet[0] ? r->packet : "unknown packet");
			fprintf(out, "  (validated context: the GPU ran ferryd's shadow copy at 0x%016" PRIx64
				     "; addresses below are the shadow's)\n", r->ib_iova);
		} else {
			fprintf(out, "ESTIMATED CRASH LOCATION! IB%u 0x%016" PRIx64 " dword %u: %s\n", r->ib_level,
				r->ib_iova, r->dword, r->packet[0] ? r->packet : "unknown packet");
		}
		if (r->frame[0])
			fprintf(out, "  executing: %s\n", r->frame);
		if (!decode_crash_ib(out, r, bos, nr_bos, follow_ibs)) {
			if (r->has_header)
				describe_header(out, r->header);
			fprintf(out, "  (the report carries no contents for IB 0x%" PRIx64 ": cannot decode around the "
				     "crash location)\n", r->ib_iova);
		}
	} else {
		fprintf(out, "no crash location in this report\n");
	}

	if (r->nr_packets)
		print_last_packets(out, r);
	if (r->cp_state[0])
		fprintf(out, "\ncp state:\n%s", r->cp_state);

	for (size_t i = 0; i < r->nr_mems; i++) {
		const struct fault_report_mem *m = &r->mems[i];
		if (!m->is_packets)
			continue;
		size_t n = m->data_len / 4;
		uint32_t *w = to_dwords(m->data, n);
		if (!w)
			continue;
		fprintf(out, "\n%s at 0x%016" PRIx64 " (%zu dwords):\n", m->name, m->iova, n);
		struct pm4_decode_options o = { .bos = bos, .nr_bos = nr_bos, .follow_ibs = false,
						.mark = r->has_crash, .mark_iova = r->ib_iova + 4ull * r->dword };
		pm4_decode(out, w, n, m->iova, &o, NULL);
		free(w);
	}

	if (r->nr_regs) {
		fprintf(out, "\nregisters:\n");
		for (size_t i = 0; i < r->nr_regs; i++) {
			/* A report from another kernel may say "?" where ferry's table has a name. */
			char nb[48];
			const char *name = r->regs[i].name;
			if (!name[0] || !strcmp(name, "?")) {
				name = a6xx_reg_name(r->regs[i].offset / 4, nb, sizeof(nb));
				if (!name)
					name = "?";
			}
			fprintf(out, "  %-24s (0x%04x) = 0x%08x\n", name, r->regs[i].offset / 4, r->regs[i].value);
		}
	}

	/* Say plainly what a complete decode would need and the report lacks. */
	char missing[160] = "";
	if (nr_with_data == 0)
		strcat(missing, " BO contents (bos:/ringbuffer: with data),");
	if (nr_packets == 0 && r->nr_packets == 0)
		strcat(missing, " last packets,");
	if (!r->has_crash)
		strcat(missing, " crash location,");
	if (missing[0]) {
		missing[strlen(missing) - 1] = '\0';
		fprintf(out, "\nnot in this report:%s\n", missing);
	}
	if (r->other_sections[0])
		fprintf(out, "sections not decoded: %s\n", r->other_sections);
	free(bos);
	return ferror(out) ? -1 : 0;
}

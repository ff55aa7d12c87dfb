/* Guest addresses in the fault reports of validated contexts: the GPU ran host shadow copies of
 * the guest's command streams, so the kernel's dump names shadow iovas the guest cannot map. The
 * validator's stream table (kept with each in-flight submit) maps them back to guest BO + offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msm/msm_validation.h"
#include "core/msm/msm_fault_guest_addr.h"
#include "validate/pm4_validate.h"

bool fault_guest_address(const struct host_ctx *ctx, uint64_t shadow_iova, struct fault_guest_addr *out)
{
	const struct pm4v_stream_copy *c = validation_guest_stream(ctx, shadow_iova);
	if (!c)
		return false;
	uint64_t delta = shadow_iova - c->shadow_iova; /* < c->size */
	*out = (struct fault_guest_addr){
		.iova = c->guest_iova + delta, .bo_id = c->bo_id, .bo_offset = c->bo_offset + delta,
		.draw_state = c->draw_state,
	};
	return true;
}

/* One "  - { iova: 0x..., level: ..." line of the dump's last-packets section, with the shadow
 * iova replaced by the guest's and the BO named at the end. False if it names no shadow. */
static bool translate_packet_line(const struct host_ctx *ctx, const char *line, size_t len, FILE *t)
{
	static const char key[] = "iova: 0x";
	const char *end = line + len;
	const char *at = memmem(line, len, key, sizeof(key) - 1);
	if (!at)
		return false;
	at += sizeof(key) - 1;
	/* The dump is one NUL-terminated string, so strtoull may look past len; the hex ends at ','. */
	char *digits_end;
	uint64_t shadow = strtoull(at, &digits_end, 16);
	if (digits_end > end)
		return false;
	struct fault_guest_addr g;
	if (digits_end == at || !fault_guest_address(ctx, shadow, &g))
		return false;
	fprintf(t, "%.*s%016llx%.*s (bo %u +0x%llx)\n", (int)(at - line), line, (unsigned long long)g.iova,
		(int)(end - digits_end), digits_end, g.bo_id, (unsigned long long)g.bo_offset);
	return true;
}

char *fault_guest_lines(const struct host_ctx *ctx, const struct msm_fault *f, const char *kernel_text)
{
	if (!msm_hctx(ctx)->val)
		return NULL;
	char *buf = NULL;
	size_t size = 0;
	FILE *t = open_memstream(&buf, &size);
	if (!t)
		return NULL;
	struct fault_guest_addr g;
	if (f->have_location && fault_guest_address(ctx, f->ib_iova, &g))
		fprintf(t, "guest: IB%u 0x%016llx (bo %u +0x%llx%s), shadow 0x%016llx\n", f->ib_level,
		     (unsigned long long)g.iova, g.bo_id, (unsigned long long)g.bo_offset,
		     g.draw_state ? ", draw-state group" : "", (unsigned long long)f->ib_iova);
	else if (f->have_location)
		fprintf(t, "guest: unknown (IB 0x%016llx is no shadow copy of a submit in flight)\n",
		     (unsigned long long)f->ib_iova);

	/* The dump's last-packets section, rewritten: "last-packets:" then indented lines. */
	bool in_section = false, any = false;
	for (const char *line = kernel_text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len && line[0] != ' ' && line[0] != '\t')
			in_section = len == 13 && !memcmp(line, "last-packets:", 13);
		else if (in_section && len) {
			if (!any)
				fputs("guest-last-packets:\n", t);
			any = true;
			if (!translate_packet_line(ctx, line, len, t))
				fprintf(t, "%.*s (not a shadow copy)\n", (int)len, line);
		}
		line += len + (nl ? 1 : 0);
	}
	fputs("note: validated context: the GPU ran host shadow copies of the guest's command streams; "
	      "the kernel dump below shows their (host) addresses, the lines above the guest's\n", t);
	bool failed = ferror(t) != 0;
	if (fclose(t) != 0 || failed) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Reading and parsing msm devcoredumps: the pagefault address and direction, the submit that was
 * running (queue, fence) and the estimated crash location, for the guest's fault report. */
#include "msm.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>


enum dump_section { SEC_OTHER, SEC_FAULT, SEC_HANG, SEC_CP_ERROR, SEC_UNMODELED, SEC_SUBMIT, SEC_CRASH };

static enum dump_section section_of(const char *name, size_t len)
{
	if ((len == 14 && !strncmp(name, "pagefault-info", len)) || (len == 10 && !strncmp(name, "fault-info", len)))
		return SEC_FAULT;
	if (len == 4 && !strncmp(name, "hang", len))
		return SEC_HANG;
	if (len == 8 && !strncmp(name, "cp-error", len))
		return SEC_CP_ERROR;
	if (len == 9 && !strncmp(name, "unmodeled", len))
		return SEC_UNMODELED;
	if (len == 6 && !strncmp(name, "submit", len))
		return SEC_SUBMIT;
	if (len == 14 && !strncmp(name, "crash-location", len))
		return SEC_CRASH;
	return SEC_OTHER;
}

static bool key_is(const char *key, size_t len, const char *const *names)
{
	for (; *names; names++)
		if (strlen(*names) == len && !strncasecmp(key, *names, len))
			return true;
	return false;
}

/* Addresses are printed as bare hex in msm dumps; other numbers are decimal unless 0x-prefixed. */
static uint64_t parse_num(const char *v, bool hex_default)
{
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		return strtoull(v + 2, NULL, 16);
	return strtoull(v, NULL, hex_default ? 16 : 10);
}

static const char *const k_iova[] = { "iova", "addr", "address", NULL };
static const char *const k_dir[] = { "dir", "direction", NULL };
static const char *const k_queue[] = { "queue", "queueid", "queue_id", "submitqueue", NULL };
static const char *const k_fence[] = { "fence", "seqno", NULL };
static const char *const k_ib[] = { "ib-iova", "ib_iova", "ib", "ib-base", "ib_base", "iova", NULL };
static const char *const k_dword[] = { "dword", "ib-dword", "ib_dword", "offset-dwords", NULL };
static const char *const k_level[] = { "level", "ib-level", "ib_level", NULL };
static const char *const k_opcode[] = { "opcode", "packet", NULL };

static void parse_line(struct msm_fault *f, enum dump_section sec, const char *key, size_t klen,
		       const char *val)
{
	switch (sec) {
	case SEC_FAULT:
		if (key_is(key, klen, k_iova)) {
			f->iova = parse_num(val, true);
			f->have_iova = true;
		} else if (key_is(key, klen, k_dir)) {
			f->write = !strncasecmp(val, "WRITE", 5);
		}
		break;
	case SEC_SUBMIT:
		if (key_is(key, klen, k_queue)) {
			f->queue_id = (uint32_t)parse_num(val, false);
			f->have_submit = true;
		} else if (key_is(key, klen, k_fence)) {
			f->fence = (uint32_t)parse_num(val, false);
			f->have_submit = true;
		}
		break;
	case SEC_CRASH:
		if (key_is(key, klen, k_ib)) {
			f->ib_iova = parse_num(val, true);
			f->have_location = true;
		} else if (key_is(key, klen, k_dword)) {
			f->ib_dword = (uint32_t)parse_num(val, false);
		} else if (key_is(key, klen, k_level)) {
			f->ib_level = (uint32_t)parse_num(val, false);
		} else if (key_is(key, klen, k_opcode)) {
			/* "CP_MEM_WRITE (0x3d)", "PKT4 reg=0x0883" (reported as 0x100|reg, as wire.h
			 * says), "invalid", or a bare number. */
			const char *paren = strchr(val, '(');
			const char *reg = strstr(val, "reg=");
			if (paren)
				f->opcode = (uint32_t)parse_num(paren + 1, false);
			else if (reg)
				f->opcode = 0x100u | (uint32_t)parse_num(reg + 4, true);
			else if (isdigit((unsigned char)val[0]))
				f->opcode = (uint32_t)parse_num(val, false);
		}
		break;
	case SEC_HANG:
	case SEC_CP_ERROR:
	case SEC_UNMODELED:
	case SEC_OTHER:
		break;
	}
}

void msm_parse_coredump(const char *text, struct msm_fault *f)
{
	memset(f, 0, sizeof(*f));
	enum dump_section sec = SEC_OTHER;
	const char *line = text;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[256];
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = end ? end + 1 : NULL;

		if (buf[0] && !isspace((unsigned char)buf[0])) {
			/* A top-level "name:" line opens a section; "name: value" is a top-level field. */
			char *colon = strchr(buf, ':');
			if (colon && colon[1] == '\0') {
				sec = section_of(buf, (size_t)(colon - buf));
				if (sec == SEC_FAULT)
					f->kind = MSM_FAULT_PAGEFAULT;
				else if (sec == SEC_HANG)
					f->kind = MSM_FAULT_HANG;
				else if (sec == SEC_CP_ERROR)
					f->kind = MSM_FAULT_CP_ERROR;
				else if (sec == SEC_UNMODELED)
					f->kind = MSM_FAULT_UNMODELED;
				continue;
			}
			sec = SEC_OTHER;
			continue;
		}
		char *p = buf;
		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '-' && p[1] == ' ')
			p += 2;
		size_t klen = strcspn(p, "=:");
		if (p[klen] == '\0' || klen == 0)
			continue;
		const char *val = p + klen + 1;
		while (isspace((unsigned char)*val))
			val++;
		parse_line(f, sec, p, klen, val);
	}
}

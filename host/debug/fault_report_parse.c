/* Parser for fault/hang report text (see fault_report.h). Line-oriented and lenient about
 * sections it does not know, strict about the numbers in the ones it does; works on (pointer,
 * length) slices so a multi-megabyte ascii85 line is never copied into a fixed buffer. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fault_report.h"

struct slice {
	const char *p;
	size_t n;
};

static struct slice trim(struct slice s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t'))
		s.p++, s.n--;
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
		s.n--;
	return s;
}

static bool eq(struct slice s, const char *lit) { return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0; }

static bool starts(struct slice s, const char *lit)
{
	size_t l = strlen(lit);
	return s.n >= l && memcmp(s.p, lit, l) == 0;
}

static void copy_str(char *dst, size_t cap, struct slice s)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	memcpy(dst, s.p, n);
	dst[n] = '\0';
}

/* Unsigned number (decimal or 0x hex) filling the whole slice, or up to the first space / '(' /
 * ',' (so "630 (6.3.0.2)" and "0x10, value" parse). */
static bool parse_u64(struct slice s, uint64_t *out)
{
	s = trim(s);
	size_t n = 0;
	while (n < s.n && s.p[n] != ' ' && s.p[n] != '(' && s.p[n] != ',' && s.p[n] != '}')
		n++;
	if (n == 0 || n > 24)
		return false;
	char buf[32];
	memcpy(buf, s.p, n);
	buf[n] = '\0';
	if (buf[0] == '-' || buf[0] == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool parse_u32(struct slice s, uint32_t *out)
{
	uint64_t v;
	if (!parse_u64(s, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Splits "key: value" / "key=value"; false if there is no separator. */
static bool split_kv(struct slice s, struct slice *k, struct slice *v)
{
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == ':' || s.p[i] == '=') {
			*k = trim((struct slice){ s.p, i });
			*v = trim((struct slice){ s.p + i + 1, s.n - i - 1 });
			return true;
		}
	}
	return false;
}

/* The value of key in a "{ k1: v1, k2: v2 }" line. */
static bool brace_get(struct slice line, const char *key, struct slice *v)
{
	line = trim(line);
	if (line.n && line.p[0] == '{')
		line.p++, line.n--;
	if (line.n && line.p[line.n - 1] == '}')
		line.n--;
	while (line.n) {
		size_t i = 0;
		while (i < line.n && line.p[i] != ',')
			i++;
		struct slice k, val;
		if (split_kv((struct slice){ line.p, i }, &k, &val) && eq(k, key)) {
			*v = val;
			return true;
		}
		if (i == line.n)
			break;
		line.p += i + 1;
		line.n -= i + 1;
	}
	return false;
}

/* Appends one little-endian word. Buffers only ever grow through here, so their capacity is
 * implied by the length (64 bytes, then powers of two) and appends cost amortised O(1). */
static int push_word(uint8_t **buf, size_t *len, uint32_t w)
{
	size_t l = *len;
	if (l == 0 || (l >= 64 && (l & (l - 1)) == 0)) {
		size_t cap = l ? l * 2 : 64;
		if (cap < l)
			return -1;
		uint8_t *nb = realloc(*buf, cap);
		if (!nb)
			return -1;
		*buf = nb;
	}
	for (int b = 0; b < 4; b++)
		(*buf)[l + (size_t)b] = (uint8_t)(w >> (8 * b));
	*len = l + 4;
	return 0;
}

int fault_report_ascii85_decode(const char *s, size_t len, uint8_t **buf, size_t *buf_len)
{
	for (size_t i = 0; i < len;) {
		char c = s[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			i++;
			continue;
		}
		uint32_t word;
		if (c == 'z') {
			word = 0;
			i++;
		} else {
			uint64_t v = 0;
			for (int k = 0; k < 5; k++, i++) {
				if (i >= len || s[i] < '!' || s[i] > 'u')
					return -1;
				v = v * 85 + (uint64_t)(s[i] - '!');
			}
			if (v > UINT32_MAX)
				return -1;
			word = (uint32_t)v;
		}
		if (push_word(buf, buf_len, word))
			return -1;
	}
	return 0;
}

/* Hex dword tokens ("0x703d8003" or "703d8003", separated by spaces, commas, brackets). */
static int hex_words_decode(struct slice s, uint8_t **buf, size_t *buf_len)
{
	size_t i = 0;
	while (i < s.n) {
		while (i < s.n && (s.p[i] == ' ' || s.p[i] == ',' || s.p[i] == '[' || s.p[i] == ']' || s.p[i] == '\t'))
			i++;
		if (i >= s.n)
			break;
		size_t j = i;
		while (j < s.n && s.p[j] != ' ' && s.p[j] != ',' && s.p[j] != ']' && s.p[j] != '\t')
			j++;
		struct slice tok = { s.p + i, j - i };
		if (starts(tok, "0x") || starts(tok, "0X"))
			tok.p += 2, tok.n -= 2;
		if (tok.n == 0 || tok.n > 8)
			return -1;
		uint32_t w = 0;
		for (size_t k = 0; k < tok.n; k++) {
			char c = tok.p[k];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				return -1;
			w = w << 4 | (uint32_t)d;
		}
		if (push_word(buf, buf_len, w))
			return -1;
		i = j;
	}
	return 0;
}

/* One list entry of a memory-carrying section, built up line by line. */
struct entry {
	bool active, has_iova, has_size;
	uint64_t iova, size;
	char name[48];
	uint8_t *data;
	size_t data_len;
	enum { DATA_NONE, DATA_ASCII85, DATA_HEX } data_mode;
	size_t data_indent; /* continuation lines are indented deeper than the data: key */
};

struct parser {
	struct fault_report *r;
	char section[48];
	bool section_used;
	struct entry e;
	size_t line_no;
	char *err;
	size_t err_len;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *ps, const char *fmt, ...)
{
	int n = snprintf(ps->err, ps->err_len, "line %zu: ", ps->line_no);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->err_len)
		vsnprintf(ps->err + n, ps->err_len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void note_other_section(struct parser *ps)
{
	struct fault_report *r = ps->r;
	size_t used = strlen(r->other_sections);
	if (ps->section[0] && !ps->section_used && used + strlen(ps->section) + 2 < sizeof(r->other_sections))
		snprintf(r->other_sections + used, sizeof(r->other_sections) - used, "%s%s", used ? " " : "",
			 ps->section);
}

static int flush_entry(struct parser *ps)
{
	struct entry *e = &ps->e;
	int ret = 0;
	/* An entry counts with contents, or (for annotating addresses) with a size alone. */
	if (e->active && e->has_iova && (e->data_len || (e->has_size && e->size))) {
		struct fault_report *r = ps->r;
		struct fault_report_mem *nm = realloc(r->mems, (r->nr_mems + 1) * sizeof(*nm));
		if (!nm) {
			ret = fail(ps, "out of memory");
		} else {
			r->mems = nm;
			struct fault_report_mem *m = &nm[r->nr_mems++];
			memset(m, 0, sizeof(*m));
			m->iova = e->iova;
			m->size = e->has_size && e->size >= e->data_len ? e->size : e->data_len;
			memcpy(m->name, e->name, sizeof(m->name));
			if (!m->name[0])
				snprintf(m->name, sizeof(m->name), "%s", ps->section);
			m->data = e->data;
			m->data_len = e->data_len;
			m->is_packets = strstr(ps->section, "packet") != NULL;
			e->data = NULL;
			ps->section_used = true;
		}
	}
	free(e->data);
	memset(e, 0, sizeof(*e));
	return ret;
}

static int entry_kv(struct parser *ps, struct slice k, struct slice v, size_t key_indent)
{
	struct entry *e = &ps->e;
	e->active = true;
	if (eq(k, "iova") || eq(k, "ib-iova")) {
		if (!parse_u64(v, &e->iova))
			return fail(ps, "bad iova in section %s", ps->section);
		e->has_iova = true;
	} else if (eq(k, "size")) {
		if (!parse_u64(v, &e->size))
			return fail(ps, "bad size in section %s", ps->section);
		e->has_size = true;
	} else if (eq(k, "name")) {
		copy_str(e->name, sizeof(e->name), v);
	} else if (eq(k, "id") && !e->name[0]) {
		/* A label: a long section name is cut (the return value says so; nothing depends on it). */
		if (snprintf(e->name, sizeof(e->name), "%s %.*s", ps->section, (int)(v.n < 16 ? v.n : 16), v.p) >=
		    (int)sizeof(e->name))
			e->name[sizeof(e->name) - 1] = '\0';
	} else if (eq(k, "data") || eq(k, "dwords")) {
		e->data_indent = key_indent;
		if (starts(v, "!!ascii85")) {
			e->data_mode = DATA_ASCII85;
		} else {
			e->data_mode = DATA_HEX;
			if (hex_words_decode(v, &e->data, &e->data_len))
				return fail(ps, "bad hex dword list in section %s", ps->section);
		}
	}
	return 0;
}

static int top_level(struct parser *ps, struct slice k, struct slice v)
{
	struct fault_report *r = ps->r;
	if (eq(k, "comm"))
		copy_str(r->comm, sizeof(r->comm), v);
	else if (eq(k, "revision"))
		copy_str(r->revision, sizeof(r->revision), v);
	else if (eq(k, "guest")) {
		/* guest: IB1 0x... (bo N +0x...), shadow 0x...  (or "unknown (...)": ignored) */
		char buf[160];
		copy_str(buf, sizeof(buf), v);
		unsigned level, bo;
		unsigned long long iova, off, shadow;
		if (sscanf(buf, "IB%u 0x%llx (bo %u +0x%llx%*[^)]), shadow 0x%llx", &level, &iova, &bo, &off,
			   &shadow) == 5 ||
		    sscanf(buf, "IB%u 0x%llx (bo %u +0x%llx), shadow 0x%llx", &level, &iova, &bo, &off, &shadow) == 5) {
			r->has_guest = true;
			r->guest_ib_iova = iova;
			r->guest_bo = bo;
			r->guest_bo_offset = off;
			r->shadow_ib_iova = shadow;
		}
	}
	return 0;
}

/* - { iova: 0x.., level: 1, dword: 12, header: 0x70460004, packet: CP_EVENT_WRITE } */
static int last_packet(struct parser *ps, struct slice line)
{
	struct fault_report *r = ps->r;
	struct fault_report_packet p = { 0 };
	struct slice v;
	if (!brace_get(line, "iova", &v) || !parse_u64(v, &p.iova))
		return fail(ps, "last-packets entry without a valid iova");
	if ((brace_get(line, "level", &v) && !parse_u32(v, &p.level)) ||
	    (brace_get(line, "dword", &v) && !parse_u32(v, &p.dword)))
		return fail(ps, "bad last-packets level/dword");
	if (brace_get(line, "header", &v)) {
		if (!parse_u32(v, &p.header))
			return fail(ps, "bad last-packets header");
		p.has_header = true;
	}
	if (brace_get(line, "packet", &v))
		copy_str(p.name, sizeof(p.name), v);
	struct fault_report_packet *np = realloc(r->packets, (r->nr_packets + 1) * sizeof(*np));
	if (!np)
		return fail(ps, "out of memory");
	r->packets = np;
	r->packets[r->nr_packets++] = p;
	ps->section_used = true;
	return 0;
}

static int section_line(struct parser *ps, struct slice line, size_t indent)
{
	struct fault_report *r = ps->r;
	struct entry *e = &ps->e;
	if (e->data_mode != DATA_NONE && indent > e->data_indent) {
		int bad = e->data_mode == DATA_ASCII85 ? fault_report_ascii85_decode(line.p, line.n, &e->data, &e->data_len)
						       : hex_words_decode(line, &e->data, &e->data_len);
		return bad ? fail(ps, "bad %s data in section %s", e->data_mode == DATA_ASCII85 ? "ascii85" : "hex",
				  ps->section)
			   : 0;
	}
	e->data_mode = DATA_NONE;
	bool item = starts(line, "- ");
	if (item)
		line = trim((struct slice){ line.p + 2, line.n - 2 });
	const char *s = ps->section;
	struct slice k, v;
	if (!strcmp(s, "registers")) {
		/* - { offset: 0x0024a0, value: 0x00001000, name: CP_IB1_BASE } */
		const char *o = memmem(line.p, line.n, "offset:", 7), *val = memmem(line.p, line.n, "value:", 6);
		const char *nm = memmem(line.p, line.n, "name:", 5);
		if (!o || !val)
			return fail(ps, "register line without offset/value");
		struct fault_report_reg reg = { 0 };
		const char *end = line.p + line.n;
		if (!parse_u32((struct slice){ o + 7, (size_t)(end - o - 7) }, &reg.offset) ||
		    !parse_u32((struct slice){ val + 6, (size_t)(end - val - 6) }, &reg.value))
			return fail(ps, "bad register offset/value");
		if (nm) {
			struct slice n = trim((struct slice){ nm + 5, (size_t)(end - nm - 5) });
			if (n.n && n.p[n.n - 1] == '}')
				n = trim((struct slice){ n.p, n.n - 1 });
			copy_str(reg.name, sizeof(reg.name), n);
		}
		struct fault_report_reg *nr = realloc(r->regs, (r->nr_regs + 1) * sizeof(*nr));
		if (!nr)
			return fail(ps, "out of memory");
		r->regs = nr;
		r->regs[r->nr_regs++] = reg;
		ps->section_used = true;
		return 0;
	}
	if (!strcmp(s, "last-packets") && item && line.n && line.p[0] == '{')
		return last_packet(ps, line);
	if (!strcmp(s, "cp-state")) {
		/* Kept as reported: the printer shows it as it is. */
		size_t used = strlen(r->cp_state);
		if (used + line.n + indent + 2 < sizeof(r->cp_state))
			snprintf(r->cp_state + used, sizeof(r->cp_state) - used, "%*s%.*s\n", (int)indent, "",
				 (int)line.n, line.p);
		ps->section_used = true;
		return 0;
	}
		if (!split_kv(line, &k, &v))
		return 0; /* free text inside a section we only skim */
	if (!strcmp(s, "pagefault-info")) {
		r->kind = FAULT_REPORT_PAGEFAULT;
		ps->section_used = true;
		if (eq(k, "iova")) {
			if (!parse_u64(v, &r->fault_iova))
				return fail(ps, "bad fault iova");
			r->has_fault_iova = true;
		} else if (eq(k, "dir")) {
			copy_str(r->dir, sizeof(r->dir), v);
		} else if (eq(k, "type")) {
			copy_str(r->type, sizeof(r->type), v);
		} else if (eq(k, "source")) {
			copy_str(r->source, sizeof(r->source), v);
		}
	} else if (!strcmp(s, "hang") || !strcmp(s, "cp-error")) {
		r->kind = s[0] == 'h' ? FAULT_REPORT_HANG : FAULT_REPORT_CP_ERROR;
		ps->section_used = true;
		if (eq(k, "reason"))
			copy_str(r->reason, sizeof(r->reason), v);
	} else if (!strcmp(s, "submit")) {
		r->has_submit = true;
		ps->section_used = true;
		uint32_t *dst = eq(k, "queue") ? &r->queue : eq(k, "fence") ? &r->fence : eq(k, "prio") ? &r->prio : NULL;
		if (dst && !parse_u32(v, dst))
			return fail(ps, "bad submit %.*s", (int)k.n, k.p);
	} else if (!strcmp(s, "crash-location")) {
		r->has_crash = true;
		ps->section_used = true;
		bool ok = true;
		if (eq(k, "ib-level"))
			ok = parse_u32(v, &r->ib_level);
		else if (eq(k, "ib-iova"))
			ok = parse_u64(v, &r->ib_iova);
		else if (eq(k, "ib-size"))
			ok = parse_u32(v, &r->ib_size);
		else if (eq(k, "dword"))
			ok = parse_u32(v, &r->dword);
		else if (eq(k, "packet"))
			copy_str(r->packet, sizeof(r->packet), v);
		else if (eq(k, "frame"))
			copy_str(r->frame, sizeof(r->frame), v);
		else if (eq(k, "header"))
			ok = r->has_header = parse_u32(v, &r->header);
		if (!ok)
			return fail(ps, "bad crash-location %.*s", (int)k.n, k.p);
	} else {
		/* bos:, ringbuffer:, packet dumps and anything else with iova + data entries. */
		if (item) {
			int ret = flush_entry(ps);
			if (ret)
				return ret;
		}
		size_t key_indent = indent + (item ? 2 : 0);
		return entry_kv(ps, k, v, key_indent);
	}
	return 0;
}

static int end_section(struct parser *ps)
{
	int ret = flush_entry(ps);
	note_other_section(ps);
	ps->section[0] = '\0';
	ps->section_used = false;
	return ret;
}

bool fault_report_detect(const char *text, size_t len)
{
	size_t n = len < 4096 ? len : 4096;
	if (n == 0 || memchr(text, '\0', n))
		return false;
	if (n >= 4 && !memcmp(text, "---\n", 4))
		return true;
	static const char *const keys[] = { "kernel:", "revision:", "pagefault-info:", "crash-location:" };
	for (size_t i = 0; i < n; i++) {
		if (i && text[i - 1] != '\n')
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k]);
			if (n - i >= kl && !memcmp(text + i, keys[k], kl))
				return true;
		}
	}
	return false;
}

int fault_report_parse(const char *text, size_t len, struct fault_report *r, char *err, size_t err_len)
{
	memset(r, 0, sizeof(*r));
	struct parser ps = { .r = r, .err = err, .err_len = err_len };
	bool recognised = false;
	size_t pos = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct slice raw = { text + pos, end - pos };
		pos = end + (nl ? 1 : 0);
		ps.line_no++;
		if (memchr(raw.p, '\0', raw.n)) {
			fail(&ps, "NUL byte: not a text report");
			goto failed;
		}
		size_t indent = 0;
		while (indent < raw.n && raw.p[indent] == ' ')
			indent++;
		struct slice line = trim(raw);
		if (line.n == 0 || eq(line, "---"))
			continue;
		int ret;
		if (indent == 0) {
			if (end_section(&ps))
				goto failed;
			struct slice k, v;
			if (!split_kv(line, &k, &v))
				continue;
			recognised = true;
			if (v.n == 0)
				copy_str(ps.section, sizeof(ps.section), k);
			else if (top_level(&ps, k, v))
				goto failed;
			continue;
		}
		if (!ps.section[0])
			continue;
		ret = section_line(&ps, line, indent);
		if (ret)
			goto failed;
	}
	if (end_section(&ps))
		goto failed;
	if (!recognised) {
		snprintf(err, err_len, "no report fields found");
		goto failed;
	}
	return 0;
failed:
	free(ps.e.data);
	fault_report_free(r);
	return -1;
}

void fault_report_free(struct fault_report *r)
{
	for (size_t i = 0; i < r->nr_mems; i++)
		free(r->mems[i].data);
	free(r->mems);
	free(r->regs);
	free(r->packets);
	r->mems = NULL;
	r->regs = NULL;
	r->packets = NULL;
	r->nr_mems = r->nr_regs = r->nr_packets = 0;
}

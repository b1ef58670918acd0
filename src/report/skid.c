/*
 * skid: which functions are interrupt-enable sites, and the note that
 * names the skid (include/mmprof/skid.h says why and lists the rule).
 */
#include <string.h>

#include "mmprof/skid.h"

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);

	return n >= t && !memcmp(s + n - t, tail, t);
}

bool skid__irq_enable_site(const char *sym)
{
	static const char *const inside[] = { "irq_enable", "irqrestore", "restore_fl",
					      "local_irq_restore" };
	static const char *const starts[] = { "finish_task_switch", "__do_softirq",
					      "handle_softirqs" };
	size_t i, n = strcspn(sym, ".");	/* the name without .isra.0 and the like */
	const char *w;

	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(sym, starts[i], strlen(starts[i])))
			return true;
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		w = strstr(sym, inside[i]);
		if (w && (size_t)(w - sym) < n)
			return true;
	}
	if (ends_with(sym, n, "_unlock_irq") || ends_with(sym, n, "_sti"))
		return true;
	return false;
}

bool skid__timer_event(const char *event)
{
	return event && (!strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10));
}

void skid__note(struct outbuf *b, const char *prefix, const char *event, const char *sym,
		double share, const char *where)
{
	/* both names are the file's text: the text rule, as every other name */
	outbuf__printf(b, "%snote: ", prefix);
	outbuf__text_str(b, sym);
	outbuf__printf(b, " holds %.1f%% of ", share);
	outbuf__text_str(b, event);
	outbuf__puts(b, "'s self time: ");
	outbuf__text_str(b, event);
	outbuf__printf(b, " samples from a timer interrupt, which cannot fire while interrupts are "
			  "off, so the time of every interrupts-off section is charged where they are "
			  "enabled again (interrupt-enable skid); the cost is in its callers' code "
			  "before it (%s shows them)\n", where);
}

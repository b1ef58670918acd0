/*
 * skid: naming the interrupt-enable skid of timer sampling.
 *
 * cpu-clock and task-clock (the events mmprof falls back to where there
 * is no hardware PMU, as in most VMs) sample from a timer interrupt.
 * While a CPU runs with interrupts disabled the timer cannot fire; it
 * fires as soon as they are enabled again, and the sample is charged to
 * the instruction that enabled them.  So the time of every
 * interrupts-off section (page-fault handling under a spinlock with
 * irqsave, the scheduler's switch, a paravirtual guest's own critical
 * sections) shows up as self time of the function that ends it:
 * native_irq_enable, pvm_irq_enable (and its __raw_callee_save_ thunk),
 * _raw_spin_unlock_irqrestore, _raw_spin_unlock_irq, finish_task_switch,
 * ...  perf shows the same numbers and says nothing; report and diff name
 * the effect when such a function holds SKID_NOTE_SHARE % or more of an
 * event's self time, so that nobody optimises the irq-enable instruction.
 *
 * The irq-enable sites (skid__irq_enable_site), by the symbol's words:
 *   contains "irq_enable", "irqrestore", "restore_fl" (paravirt
 *   restore of the flags) or "local_irq_restore", or ends with
 *   "_unlock_irq" or "_sti" (native_sti); or starts with
 *   "finish_task_switch" (the switch ends with the runqueue lock's
 *   unlock_irq) or "__do_softirq"/"handle_softirqs" (softirqs run with
 *   interrupts on after an irq exit).  Suffixes (.isra.0, ...) do not
 *   matter.  Documentation/troubleshooting.md lists them.
 * Only timer events skid this way (skid__timer_event): cycles and the
 * other hardware events sample from an NMI where the PMU has one.
 * Pure functions of strings.
 */
#ifndef MMPROF_SKID_H
#define MMPROF_SKID_H

#include <stdbool.h>

#include "mmprof/outbuf.h"

#define SKID_NOTE_SHARE 5.0	/* % of an event's self time that gets a note */

bool skid__irq_enable_site(const char *sym);
bool skid__timer_event(const char *event);

/*
 * The note for sym holding share % self of event, one line after prefix
 * ("# " for report, "" for diff), text-safe; where names the view that
 * shows its callers ("report --tree").
 */
void skid__note(struct outbuf *b, const char *prefix, const char *event, const char *sym,
		double share, const char *where);

#endif

/*
 * report_text.h - a report as plain ASCII text, for terminals and mail: the
 * verdict on the first line with what it is about, then one line saying
 * what it rests on, then the gate's matrix and regressions, the bisection
 * (its answer and the path: every run in order and the best candidate after
 * it), every run with why it failed, and where the run logs are. Stored
 * text that is not printable ASCII (a subject in UTF-8, control bytes)
 * shows as '?'.
 */
#ifndef RB_REPORT_TEXT_H
#define RB_REPORT_TEXT_H

#include <stdio.h>

#include "report_data.h"
#include "report_nights.h"

void report_text_write(FILE *out, const struct report_data *data);

/* `report nightly`: the verdict line and summary, then a table per branch,
 * newest night last: date, gate, head, baseline (and the night it was the
 * head of), verdict, the head's runs, the culprit and whether that night
 * bisected it or named a known one, the regressions. */
void report_text_write_nights(FILE *out, const struct report_nights *nights);

#endif

/* KTAP as a board prints it: parsed whole, and streamed in two pieces cut
 * where the first byte says (lines split across reads, as over SSH). */
#include "fuzz.h"
#include "ktap.h"

void fuzz_one(const uint8_t *data, size_t size)
{
	struct ktap_report *report = NULL;
	struct ktap_parser *parser = NULL;
	struct ktap_counts counts;
	size_t cut;

	if (ktap_parse(data, size, NULL, &report) == 0) {
		ktap_report_count(report, &counts);
		(void)ktap_report_finished_cleanly(report);
		(void)ktap_report_find_metric(report, "power_avg");
		ktap_report_free(report);
	}
	if (size == 0 || ktap_parser_new(&parser, NULL) != 0)
		return;
	cut = data[0] % size;
	report = NULL;
	if (ktap_parser_feed(parser, data, cut) == 0 &&
	    ktap_parser_feed(parser, data + cut, size - cut) == 0 &&
	    ktap_parser_finish(parser, &report) == 0)
		ktap_report_free(report);
	ktap_parser_free(parser);
}

/*
 * http.c's pure part: which URLs are on a given server. (Requests on the
 * loop are tested through the drivers that make them: test_power_drivers
 * against a pdudaemon stand-in, test_lava.sh against LAVA.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>

#include "http.h"

/* A LAVA server's "next page" link is followed only to the same scheme,
 * host and port: a prefix match sent the token to lava.lab.evil.net
 * (issue 31). */
static void test_same_server_is_scheme_host_and_port(void **state)
{
	(void)state;
	assert_true(http_same_server("http://lava.lab", "http://lava.lab/api/v0.2/jobs/?offset=50"));
	assert_true(http_same_server("http://lava.lab/", "http://LAVA.lab:80/api/v0.2/jobs/"));
	assert_true(http_same_server("https://127.77.5.1:8443", "https://127.77.5.1:8443/x"));
	assert_false(http_same_server("http://lava.lab", "http://lava.lab.evil.net/api/v0.2/"));
	assert_false(http_same_server("http://127.77.5.1", "http://127.77.5.10/api/v0.2/"));
	assert_false(http_same_server("http://lava.lab", "http://lava.lab@evil.net/api/"));
	assert_false(http_same_server("http://lava.lab", "https://lava.lab/api/"));
	assert_false(http_same_server("http://lava.lab:8080", "http://lava.lab:8081/api/"));
	assert_false(http_same_server("http://lava.lab", "not a url"));
	assert_false(http_same_server("http://lava.lab", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_server_is_scheme_host_and_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

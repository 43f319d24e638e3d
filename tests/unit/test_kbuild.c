/* kbuild's command lines, and what a config fragment asks of a .config:
 * the pure half of kbuild builds (test_build.c runs them on a tree). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "kbuild.h"

struct fixture {
	char dir[64];
	char config[128];
	char fragment[128];
};

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture)
		return -1;
	strcpy(fixture->dir, "/tmp/rackbisect-test-kbuild-XXXXXX");
	if (!mkdtemp(fixture->dir))
		return -1;
	snprintf(fixture->config, sizeof(fixture->config), "%s/.config", fixture->dir);
	snprintf(fixture->fragment, sizeof(fixture->fragment), "%s/fragment", fixture->dir);
	*state = fixture;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fixture = *state;

	files_remove_tree(fixture->dir);
	free(fixture);
	return 0;
}

/* argv as one line, words joined by '|' so that a word with a space shows. */
static const char *joined(char **argv, char *out, size_t len)
{
	size_t used = 0;

	assert_non_null(argv);
	out[0] = '\0';
	for (char **word = argv; *word; word++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", word == argv ? "" : "|", *word);
	kbuild_free_argv(argv);
	return out;
}

static const struct kbuild_paths paths = {
	.build_dir = "/c/work/slot-1.out", .install_root = "/c/staging/x/modules-root",
	.tarball = "/c/staging/x/modules.tar.gz", .release = "6.9.0-rc1", .jobs = 4,
};

static void test_steps_are_make_out_of_tree(void **state)
{
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig", .modules = true };
	char line[1024];

	(void)state;
	assert_string_equal(joined(kbuild_argv(&recipe, NULL, KBUILD_CONFIGURE, &paths), line,
				   sizeof(line)), "make|O=/c/work/slot-1.out|x86_64_defconfig");
	assert_string_equal(joined(kbuild_argv(&recipe, NULL, KBUILD_OLDDEFCONFIG, &paths), line,
				   sizeof(line)), "make|O=/c/work/slot-1.out|olddefconfig");
	assert_string_equal(joined(kbuild_argv(&recipe, NULL, KBUILD_MAKE, &paths), line,
				   sizeof(line)), "make|O=/c/work/slot-1.out|-j4|bzImage|modules");
	assert_string_equal(joined(kbuild_argv(&recipe, NULL, KBUILD_MODULES_INSTALL, &paths), line,
				   sizeof(line)),
			    "make|O=/c/work/slot-1.out|INSTALL_MOD_PATH=/c/staging/x/modules-root|"
			    "INSTALL_MOD_STRIP=1|modules_install");
	assert_string_equal(joined(kbuild_argv(&recipe, NULL, KBUILD_PACK_MODULES, &paths), line,
				   sizeof(line)),
			    "tar|-C|/c/staging/x/modules-root/lib/modules|-czf|"
			    "/c/staging/x/modules.tar.gz|--|6.9.0-rc1");
}

/* The job's words lead every make; its own -j and compiler win. */
static void test_make_words_jobs_and_ccache(void **state)
{
	char *const targets[] = { "vmlinux", NULL };
	char *const words[] = { "make", "LLVM=1", NULL };
	char *const parallel[] = { "nice", "make", "-j2", NULL };
	struct kbuild_recipe recipe = { .config_target = "defconfig", .targets = targets };
	struct kbuild_paths cached = paths;
	char line[1024];

	(void)state;
	cached.ccache = true;
	assert_string_equal(joined(kbuild_argv(&recipe, NULL, KBUILD_MAKE, &cached), line,
				   sizeof(line)), "make|O=/c/work/slot-1.out|-j4|CC=ccache gcc|vmlinux");
	assert_string_equal(joined(kbuild_argv(&recipe, words, KBUILD_MAKE, &cached), line,
				   sizeof(line)), "make|LLVM=1|O=/c/work/slot-1.out|-j4|vmlinux");
	assert_string_equal(joined(kbuild_argv(&recipe, parallel, KBUILD_MAKE, &paths), line,
				   sizeof(line)), "nice|make|-j2|O=/c/work/slot-1.out|vmlinux");
	assert_string_equal(joined(kbuild_argv(&recipe, words, KBUILD_CONFIGURE, &cached), line,
				   sizeof(line)), "make|LLVM=1|O=/c/work/slot-1.out|defconfig");
}

static void test_program_in_path(void **state)
{
	(void)state;
	assert_true(kbuild_program_in_path("sh"));
	assert_false(kbuild_program_in_path("rackbisect-no-such-program"));
}

static void put(const char *path, const char *text)
{
	assert_int_equal(files_write_atomic(path, text), 0);
}

static int check(struct fixture *fixture, const char *config, const char *fragment, char *why,
		 size_t why_len)
{
	put(fixture->config, config);
	put(fixture->fragment, fragment);
	why[0] = '\0';
	return kbuild_check_fragment(fixture->config, fixture->fragment, why, why_len);
}

/* Values as written; "is not set" and =n both mean off, and off is
 * satisfied by an absent symbol too. */
static void test_check_accepts_what_survived(void **state)
{
	struct fixture *fixture = *state;
	char why[1024];

	assert_int_equal(check(fixture,
			       "CONFIG_ATH9K=m\nCONFIG_LOCALVERSION=\"-lab\"\nCONFIG_HZ=250\n"
			       "# CONFIG_ATH9K_HTC is not set\nCONFIG_ATH10K=n\n",
			       "# comment\n\nCONFIG_ATH9K=m\nCONFIG_LOCALVERSION=\"-lab\"\n"
			       "CONFIG_HZ=250\n# CONFIG_ATH9K_HTC is not set\n# CONFIG_ATH10K is not set\n"
			       "CONFIG_CARL9170=n\n",
			       why, sizeof(why)), 0);
}

static void test_check_names_what_was_dropped(void **state)
{
	struct fixture *fixture = *state;
	char why[1024];

	assert_int_equal(check(fixture, "CONFIG_ATH9K=m\n# CONFIG_ATH9K_PCI is not set\n",
			       "CONFIG_ATH9K=m\nCONFIG_ATH9K_PCI=y\n", why, sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "'CONFIG_ATH9K_PCI=y'"));
	assert_non_null(strstr(why, "left CONFIG_ATH9K_PCI not set"));
	/* built in where a module was asked for: a different kernel */
	assert_int_equal(check(fixture, "CONFIG_ATH9K=y\n", "CONFIG_ATH9K=m\n", why, sizeof(why)),
			 -ENOEXEC);
	assert_non_null(strstr(why, "made it 'CONFIG_ATH9K=y'"));
	/* off asked, on given */
	assert_int_equal(check(fixture, "CONFIG_ATH9K_HTC=m\n", "# CONFIG_ATH9K_HTC is not set\n",
			       why, sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "CONFIG_ATH9K_HTC=m"));
	/* a prefix is not the symbol */
	assert_int_equal(check(fixture, "CONFIG_ATH9K_PCI=y\n", "CONFIG_ATH9K=m\n", why, sizeof(why)),
			 -ENOEXEC);
}

static void test_bad_fragment_lines_say_where(void **state)
{
	struct fixture *fixture = *state;
	char why[1024];

	assert_int_equal(check(fixture, "", "CONFIG_A=y\nATH9K=m\n", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "fragment:2: not a kconfig line"));
	assert_non_null(strstr(why, "ATH9K=m"));
	assert_int_equal(check(fixture, "", "CONFIG_A=\n", why, sizeof(why)), -EINVAL);
	assert_int_equal(check(fixture, "", "# CONFIG_A is off\n", why, sizeof(why)), -EINVAL);
	assert_int_equal(check(fixture, "", "CONFIG_=y\n", why, sizeof(why)), -EINVAL);
	/* a file that is no fragment is not quoted: `fragment: /etc/shadow`
	 * printed its first line (issue 31) */
	assert_int_equal(check(fixture, "", "root:$6$secret:19000:0:99999:7:::\nCONFIG_A=y\n",
			       why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "fragment:1: not a kconfig line"));
	assert_non_null(strstr(why, "is it a config fragment?"));
	assert_null(strstr(why, "secret"));
}

static void test_merge_appends_after_the_base(void **state)
{
	struct fixture *fixture = *state;
	char why[1024], *text;

	put(fixture->config, "CONFIG_ATH9K=y\n");
	put(fixture->fragment, "CONFIG_ATH9K=m");		/* no newline at the end */
	assert_int_equal(kbuild_merge_fragment(fixture->config, fixture->fragment, why, sizeof(why)),
			 0);
	text = files_read_text(fixture->config);
	assert_non_null(text);
	assert_non_null(strstr(text, "CONFIG_ATH9K=y\n\n# rackbisect: 1 settings from "));
	assert_int_equal(strcmp(text + strlen(text) - strlen("\nCONFIG_ATH9K=m\n"),
				"\nCONFIG_ATH9K=m\n"), 0);
	free(text);
	put(fixture->fragment, "CONFIG_ATH9K=m\nnonsense\n");
	assert_int_equal(kbuild_merge_fragment(fixture->config, fixture->fragment, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, ":2:"));
}

/* The recipe's id follows every input that changes the kernel built. */
static void test_recipe_id_follows_its_inputs(void **state)
{
	struct fixture *fixture = *state;
	char *const targets[] = { "bzImage", NULL };
	char *const words[] = { "make", "LLVM=1", NULL };
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig",
					.fragment = fixture->fragment };
	char first[17], same[17], other[17];

	put(fixture->fragment, "CONFIG_ATH9K=m\n");
	assert_int_equal(kbuild_recipe_id(&recipe, NULL, "bzImage", "kernel.release", first), 0);
	assert_int_equal(strlen(first), 16);
	assert_int_equal(kbuild_recipe_id(&recipe, NULL, "bzImage", "kernel.release", same), 0);
	assert_string_equal(first, same);
	put(fixture->fragment, "CONFIG_ATH9K=y\n");
	assert_int_equal(kbuild_recipe_id(&recipe, NULL, "bzImage", "kernel.release", other), 0);
	assert_string_not_equal(first, other);
	put(fixture->fragment, "CONFIG_ATH9K=m\n");
	assert_int_equal(kbuild_recipe_id(&recipe, words, "bzImage", "kernel.release", other), 0);
	assert_string_not_equal(first, other);
	recipe.targets = targets;
	assert_int_equal(kbuild_recipe_id(&recipe, NULL, "bzImage", "kernel.release", other), 0);
	assert_string_not_equal(first, other);
	recipe.targets = NULL;
	recipe.modules = true;
	assert_int_equal(kbuild_recipe_id(&recipe, NULL, "bzImage", "kernel.release", other), 0);
	assert_string_not_equal(first, other);
	unlink(fixture->fragment);
	assert_int_equal(kbuild_recipe_id(&recipe, NULL, "bzImage", "kernel.release", other),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_are_make_out_of_tree),
		cmocka_unit_test(test_make_words_jobs_and_ccache),
		cmocka_unit_test(test_program_in_path),
		cmocka_unit_test_setup_teardown(test_check_accepts_what_survived, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_names_what_was_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_fragment_lines_say_where, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_appends_after_the_base, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recipe_id_follows_its_inputs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

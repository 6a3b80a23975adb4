/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * core/history.c: the ring every feature's `show ... history` reads keeps
 * the newest events, oldest first, and drops the oldest when full.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/history.h"

struct ev {
	uint64_t t;
	char what[12];
};

static void test_empty_then_partial(void **state)
{
	static struct ev buf[4];
	struct history h = HISTORY_INIT(buf);
	struct ev out[4];

	(void)state;
	assert_int_equal(h.cap, 4);
	assert_int_equal(h.size, sizeof(struct ev));
	assert_int_equal(history_get(&h, out, 4), 0);
	for (uint64_t t = 1; t <= 3; t++)
		history_push(&h, &(struct ev){ .t = t });
	assert_int_equal(history_get(&h, out, 4), 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(out[i].t, i + 1);
}

static void test_full_drops_the_oldest(void **state)
{
	static struct ev buf[4];
	struct history h = HISTORY_INIT(buf);
	struct ev out[4];

	(void)state;
	for (uint64_t t = 1; t <= 10; t++)
		history_push(&h, &(struct ev){ .t = t });
	assert_int_equal(history_get(&h, out, 4), 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(out[i].t, 7 + i); /* 7, 8, 9, 10 */
}

static void test_short_buffer_gets_the_newest(void **state)
{
	static struct ev buf[8];
	struct history h = HISTORY_INIT(buf);
	struct ev out[2];

	(void)state;
	for (uint64_t t = 1; t <= 5; t++)
		history_push(&h, &(struct ev){ .t = t });
	assert_int_equal(history_get(&h, out, 2), 2);
	assert_int_equal(out[0].t, 4);
	assert_int_equal(out[1].t, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_then_partial),
		cmocka_unit_test(test_full_drops_the_oldest),
		cmocka_unit_test(test_short_buffer_gets_the_newest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

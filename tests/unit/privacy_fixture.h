/* privacy_fixture.h: how the Check programs of algorithms/privacy/ check a refused call:
 * EXPECT_ERR (test_composition.c, test_theorems.c, test_mechanisms.c) and expect_einval
 * (test_rdp.c, test_rdp_wor.c). Every bad-input case of those suites asks the same three
 * things: the status, the code left in the error, and the parameter named in its message.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_PRIVACY_FIXTURE_H
#define DPERM_PRIVACY_FIXTURE_H

#include <check.h>
#include <string.h>

#include "algorithms/base/err.h"

/* `call` returns `want`, leaves want in e_.code and `word` in e_.msg. e_ is the including
 * file's `static dp_err e_` (file scope so the macro can read it), passed to `call` as its
 * error; it is cleared first, so a message left by an earlier call cannot pass. A macro,
 * not a function, so that a failure names the line of the call. */
#define EXPECT_ERR(call, want, word)                                                          \
    do {                                                                                      \
        dp_err_clear(&e_);                                                                    \
        int rc_ = (call);                                                                     \
        ck_assert_int_eq(rc_, (want));                                                        \
        ck_assert_int_eq(e_.code, (want));                                                    \
        ck_assert_msg(strstr(e_.msg, (word)) != NULL, "message '%s' lacks '%s'", e_.msg,      \
                      (word));                                                                \
    } while (0)

/* Expects DP_EINVAL with `word` in the message: rc is the status of a call that filled
 * err. */
static inline void expect_einval(int rc, const dp_err *err, const char *word)
{
    ck_assert_int_eq(rc, DP_EINVAL);
    ck_assert_int_eq(err->code, DP_EINVAL);
    ck_assert_msg(strstr(err->msg, word) != NULL, "message \"%s\" does not name %s", err->msg,
                  word);
}

#endif

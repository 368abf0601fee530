/* cli_privacy.c: `dperm privacy epsilon|sigma|steps ...`, the privacy calculator.
 *
 * The schedule is T steps of the Gaussian mechanism with noise multiplier S on a sample
 * of rate Q. epsilon: what it spends; sigma: the smallest noise multiplier meeting a
 * target; steps: the most steps within a target. --accountant picks the analysis (default
 * rdp, the one dperm's runs use); --verbose puts every accountant side by side, like TF
 * Privacy's compute_dp_sgd_privacy but for all of them at once.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/privacy/accountant.h"
#include "harness/cli/cli.h"

static const char PRIVACY_HELP[] =
    "usage: dperm privacy epsilon --sigma S --q Q --steps T --delta D [options]\n"
    "       dperm privacy sigma --epsilon E --q Q --steps T --delta D [options]\n"
    "       dperm privacy steps --epsilon E --sigma S --q Q --delta D [options]\n"
    "\n"
    "Privacy of DP-SGD-style training: T steps of the Gaussian mechanism with noise\n"
    "multiplier S (noise std = S x sensitivity) on a sample of rate Q (Q = 1: full batch).\n"
    "\n"
    "options:\n"
    "  --sigma S          noise multiplier (> 0)\n"
    "  --epsilon E        target epsilon (> 0)\n"
    "  --q Q              sampling rate in (0, 1] (expected batch size / n); a fraction\n"
    "                     such as 256/60000 is taken as it is\n"
    "  --steps T          number of steps (>= 1)\n"
    "  --epochs E --n N --batch B\n"
    "                     instead of --steps: E epochs of floor(N / B) steps each (as\n"
    "                     dperm trains with Poisson sampling); --q defaults to B / N\n"
    "  --delta D          delta in (0, 1)\n"
    "  --accountant A     rdp (default), rdp_classic, moments, rdp_wor, pld, advanced, basic,\n"
    "                     lssgd_theorem1, lecture15_gd (q = 1 only), pld_wor\n"
    "                     (`dperm list accountants` describes each)\n"
    "  --max-steps N      upper limit for `steps` (default 100000000)\n"
    "  --verbose          every accountant side by side, with RDP orders\n";

static int parse_num(const char *opt, const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (end == s || *end || !isfinite(*out))
        return cli_usage_error("privacy", "%s takes a number, got '%s'", opt, s);
    return 0;
}

/* A number, or a fraction A/B of two positive numbers (a sampling rate as a batch size
 * over a data set's size). */
static int parse_rate(const char *opt, const char *s, double *out)
{
    const char *slash = strchr(s, '/');
    if (!slash) return parse_num(opt, s, out);
    char *end;
    double a = strtod(s, &end);
    if (end != slash || !isfinite(a) || a <= 0)
        return cli_usage_error("privacy", "%s takes a number or a fraction A/B, got '%s'", opt, s);
    double b = strtod(slash + 1, &end);
    if (end == slash + 1 || *end || !isfinite(b) || b <= 0)
        return cli_usage_error("privacy", "%s takes a number or a fraction A/B, got '%s'", opt, s);
    *out = a / b;
    return 0;
}

static int parse_count(const char *opt, double v, long *out)
{
    if (isnan(v)) return 0;
    if (v < 1 || v != floor(v) || v > 1e12)
        return cli_usage_error("privacy", "%s takes a whole number >= 1, got %g", opt, v);
    *out = (long)v;
    return 0;
}

typedef enum { WANT_EPSILON, WANT_SIGMA, WANT_STEPS } want;

/* One line of the --verbose table for accountant a; returns the accountant's answer. */
static void verbose_row(want w, dp_accountant a, double q, double sigma, long steps,
                        double delta, double eps, long max_steps)
{
    dp_err err;
    dp_err_clear(&err);
    dp_accounting_detail d = {0};
    double val = NAN, e = NAN;
    long st = 0;
    int rc;
    char note[96] = "";
    if (w == WANT_EPSILON) {
        rc = dp_accountant_epsilon(a, q, sigma, steps, delta, &val, &d, &err);
        e = val;
    } else if (w == WANT_SIGMA) {
        rc = dp_accountant_sigma(a, q, steps, delta, eps, &val, &err);
        if (rc == 0) rc = dp_accountant_epsilon(a, q, val, steps, delta, &e, &d, &err);
    } else {
        rc = dp_accountant_steps(a, q, sigma, delta, eps, max_steps, &st, &err);
        val = (double)st;
        if (rc == 0) rc = dp_accountant_epsilon(a, q, sigma, st, delta, &e, &d, &err);
    }
    if (rc) {
        printf("  %-14s %14s  %s\n", dp_accountant_name(a), "-", err.msg);
        return;
    }
    /* The accountants a run's epsilon_tight comes from (harness/sweep/privacy_truth.c). */
    if (a == DP_ACCOUNTANT_PLD)
        snprintf(note, sizeof note, "tight for Poisson batches, add/remove%s",
                 q == 1.0 ? " (q = 1: exact)" : "");
    else if (a == DP_ACCOUNTANT_PLD_WOR)
        snprintf(note, sizeof note, "tight for fixed-size wor batches, replace-one");
    else if (d.order > 0)
        snprintf(note, sizeof note, "order %g%s", d.order, d.order_at_edge ? " (grid edge)" : "");
    else if (d.eps_step > 0)
        snprintf(note, sizeof note, "per step eps %.3g, delta %.3g", d.eps_step, d.delta_step);
    if (w == WANT_EPSILON) printf("  %-14s %14.6g  %s\n", dp_accountant_name(a), val, note);
    else if (w == WANT_SIGMA) printf("  %-14s %14.6g  epsilon %.6g; %s\n", dp_accountant_name(a), val, e, note);
    else printf("  %-14s %14ld  epsilon %.6g; %s\n", dp_accountant_name(a), st, e, note);
}

int cli_privacy(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sigma", required_argument, 0, 's'},   {"epsilon", required_argument, 0, 'e'},
        {"q", required_argument, 0, 'q'},       {"steps", required_argument, 0, 't'},
        {"delta", required_argument, 0, 'd'},   {"accountant", required_argument, 0, 'a'},
        {"max-steps", required_argument, 0, 'm'}, {"verbose", no_argument, 0, 'v'},
        {"epochs", required_argument, 0, 'E'},  {"n", required_argument, 0, 'N'},
        {"batch", required_argument, 0, 'B'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    double sigma = NAN, eps = NAN, q = NAN, steps_d = NAN, delta = NAN, max_d = NAN;
    double epochs_d = NAN, n_d = NAN, batch_d = NAN;
    dp_accountant acc = DP_ACCOUNTANT_RDP;
    int verbose = 0, c;
    dp_err err;
    dp_err_clear(&err);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 's': rc = parse_num("--sigma", optarg, &sigma); break;
        case 'e': rc = parse_num("--epsilon", optarg, &eps); break;
        case 'q': rc = parse_rate("--q", optarg, &q); break;
        case 'E': rc = parse_num("--epochs", optarg, &epochs_d); break;
        case 'N': rc = parse_num("--n", optarg, &n_d); break;
        case 'B': rc = parse_num("--batch", optarg, &batch_d); break;
        case 't': rc = parse_num("--steps", optarg, &steps_d); break;
        case 'd': rc = parse_num("--delta", optarg, &delta); break;
        case 'm': rc = parse_num("--max-steps", optarg, &max_d); break;
        case 'a':
            if (dp_accountant_parse(optarg, &acc, &err))
                return cli_usage_error("privacy", "%s", err.msg);
            break;
        case 'v': verbose = 1; break;
        case 'h': fputs(PRIVACY_HELP, stdout); return EXIT_OK;
        case ':': return cli_usage_error("privacy", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("privacy", "unknown option '%s'", argv[optind - 1]);
        }
        if (rc) return rc;
    }
    if (optind >= argc)
        return cli_usage_error("privacy", "missing what to compute: epsilon, sigma or steps");
    const char *what = argv[optind];
    want w;
    if (!strcmp(what, "epsilon")) w = WANT_EPSILON;
    else if (!strcmp(what, "sigma")) w = WANT_SIGMA;
    else if (!strcmp(what, "steps")) w = WANT_STEPS;
    else return cli_usage_error("privacy", "unknown calculation '%s' (epsilon, sigma or steps)", what);
    if (optind + 1 < argc) return cli_usage_error("privacy", "unexpected argument '%s'", argv[optind + 1]);
    int n_sched = !isnan(epochs_d) + !isnan(n_d) + !isnan(batch_d);
    if (n_sched) {
        long epochs = 0, n = 0, batch = 0;
        if (n_sched < 3)
            return cli_usage_error("privacy", "--epochs, --n and --batch go together (steps = "
                                   "epochs x floor(n / batch))");
        if (!isnan(steps_d))
            return cli_usage_error("privacy", "give --steps or --epochs/--n/--batch, not both");
        int rc = parse_count("--epochs", epochs_d, &epochs);
        if (rc == 0) rc = parse_count("--n", n_d, &n);
        if (rc == 0) rc = parse_count("--batch", batch_d, &batch);
        if (rc) return rc;
        if (batch > n)
            return cli_usage_error("privacy", "--batch %ld is larger than --n %ld", batch, n);
        steps_d = (double)epochs * (double)(n / batch);
        if (isnan(q)) q = (double)batch / (double)n;
    }
    if (isnan(q) || isnan(delta)) return cli_usage_error("privacy", "--q and --delta are required");
    if (w != WANT_STEPS && isnan(steps_d)) return cli_usage_error("privacy", "%s needs --steps", what);
    if (w != WANT_SIGMA && isnan(sigma)) return cli_usage_error("privacy", "%s needs --sigma", what);
    if (w != WANT_EPSILON && isnan(eps)) return cli_usage_error("privacy", "%s needs --epsilon", what);
    long steps = 0, max_steps = 100000000;
    int rc = parse_count("--steps", steps_d, &steps);
    if (rc == 0) rc = parse_count("--max-steps", max_d, &max_steps);
    if (rc) return rc;

    double answer_eps = NAN;
    dp_accounting_detail d = {0};
    if (w == WANT_EPSILON) {
        rc = dp_accountant_epsilon(acc, q, sigma, steps, delta, &answer_eps, &d, &err);
        if (rc == 0)
            printf("epsilon = %.6g  (delta %g, sigma %g, q %g, %ld steps; %s)\n", answer_eps,
                   delta, sigma, q, steps, dp_accountant_name(acc));
    } else if (w == WANT_SIGMA) {
        rc = dp_accountant_sigma(acc, q, steps, delta, eps, &sigma, &err);
        if (rc == 0) rc = dp_accountant_epsilon(acc, q, sigma, steps, delta, &answer_eps, &d, &err);
        if (rc == 0)
            printf("sigma = %.6g  (spends epsilon %.6g <= %g; delta %g, q %g, %ld steps; %s)\n",
                   sigma, answer_eps, eps, delta, q, steps, dp_accountant_name(acc));
    } else {
        rc = dp_accountant_steps(acc, q, sigma, delta, eps, max_steps, &steps, &err);
        if (rc == 0) rc = dp_accountant_epsilon(acc, q, sigma, steps, delta, &answer_eps, &d, &err);
        if (rc == 0)
            printf("steps = %ld  (spends epsilon %.6g <= %g; delta %g, sigma %g, q %g; %s)%s\n",
                   steps, answer_eps, eps, delta, sigma, q, dp_accountant_name(acc),
                   steps == max_steps ? " (the --max-steps limit)" : "");
    }
    if (rc) {
        cli_print_error(&err);
        return EXIT_USAGE;
    }
    /* At an end of the order grid the optimum may lie outside it: the bound still holds
     * but may be loose, and the user should know. */
    if (d.order_at_edge)
        fprintf(stderr, "dperm: note: the best RDP order (%g) is at the end of the order grid; "
                        "the epsilon is an upper bound but may be loose\n", d.order);
    if (verbose) {
        printf("  %-14s %14s  %s\n", "accountant", w == WANT_EPSILON ? "epsilon" : w == WANT_SIGMA ? "sigma" : "steps",
               "details");
        for (int a = 1; a <= DP_ACCOUNTANT_COUNT; a++)
            verbose_row(w, (dp_accountant)a, q, sigma, steps, delta, eps, max_steps);
        printf("  The rows analyse different batch sampling and neighbour relations: a run's\n"
               "  epsilon_tight uses pld for Poisson batches (add/remove), pld_wor for\n"
               "  fixed-size batches without replacement (replace-one) and pld at q = 1 for\n"
               "  the full batch; the others bound the same schedule less tightly, or (the\n"
               "  theorems) claim a bound dperm checks against these.\n");
    }
    return EXIT_OK;
}

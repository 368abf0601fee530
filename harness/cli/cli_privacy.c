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

/* A question to the accountant: the options as given (NAN: not given), what to compute. */
typedef struct query {
    double sigma, eps, q, steps, delta, max_steps, epochs, n, batch;
    dp_accountant acc;
    int verbose;
    const char *what;
    want w;
} query;

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, query *o)
{
    static const struct option longopts[] = {
        {"sigma", required_argument, 0, 's'},   {"epsilon", required_argument, 0, 'e'},
        {"q", required_argument, 0, 'q'},       {"steps", required_argument, 0, 't'},
        {"delta", required_argument, 0, 'd'},   {"accountant", required_argument, 0, 'a'},
        {"max-steps", required_argument, 0, 'm'}, {"verbose", no_argument, 0, 'v'},
        {"epochs", required_argument, 0, 'E'},  {"n", required_argument, 0, 'N'},
        {"batch", required_argument, 0, 'B'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (query){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, DP_ACCOUNTANT_RDP, 0, NULL,
                 WANT_EPSILON};
    int c;
    dp_err err;
    dp_err_clear(&err);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 's': rc = parse_num("--sigma", optarg, &o->sigma); break;
        case 'e': rc = parse_num("--epsilon", optarg, &o->eps); break;
        case 'q': rc = parse_rate("--q", optarg, &o->q); break;
        case 'E': rc = parse_num("--epochs", optarg, &o->epochs); break;
        case 'N': rc = parse_num("--n", optarg, &o->n); break;
        case 'B': rc = parse_num("--batch", optarg, &o->batch); break;
        case 't': rc = parse_num("--steps", optarg, &o->steps); break;
        case 'd': rc = parse_num("--delta", optarg, &o->delta); break;
        case 'm': rc = parse_num("--max-steps", optarg, &o->max_steps); break;
        case 'a':
            if (dp_accountant_parse(optarg, &o->acc, &err))
                return cli_usage_error("privacy", "%s", err.msg);
            break;
        case 'v': o->verbose = 1; break;
        case 'h': fputs(PRIVACY_HELP, stdout); return EXIT_OK;
        case ':': return cli_usage_error("privacy", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("privacy", "unknown option '%s'", argv[optind - 1]);
        }
        if (rc) return rc;
    }
    if (optind >= argc)
        return cli_usage_error("privacy", "missing what to compute: epsilon, sigma or steps");
    o->what = argv[optind];
    if (!strcmp(o->what, "epsilon")) o->w = WANT_EPSILON;
    else if (!strcmp(o->what, "sigma")) o->w = WANT_SIGMA;
    else if (!strcmp(o->what, "steps")) o->w = WANT_STEPS;
    else return cli_usage_error("privacy", "unknown calculation '%s' (epsilon, sigma or steps)",
                                o->what);
    if (optind + 1 < argc) return cli_usage_error("privacy", "unexpected argument '%s'", argv[optind + 1]);
    return -1;
}

/* The schedule as steps (from --steps, or --epochs/--n/--batch, which also give q when it
 * is not set) and the options the calculation needs: 0, or the usage error's status. */
static int resolve(query *o, long *steps, long *max_steps)
{
    int n_sched = !isnan(o->epochs) + !isnan(o->n) + !isnan(o->batch);
    if (n_sched) {
        long epochs = 0, n = 0, batch = 0;
        if (n_sched < 3)
            return cli_usage_error("privacy", "--epochs, --n and --batch go together (steps = "
                                   "epochs x floor(n / batch))");
        if (!isnan(o->steps))
            return cli_usage_error("privacy", "give --steps or --epochs/--n/--batch, not both");
        int rc = parse_count("--epochs", o->epochs, &epochs);
        if (rc == 0) rc = parse_count("--n", o->n, &n);
        if (rc == 0) rc = parse_count("--batch", o->batch, &batch);
        if (rc) return rc;
        if (batch > n)
            return cli_usage_error("privacy", "--batch %ld is larger than --n %ld", batch, n);
        o->steps = (double)epochs * (double)(n / batch);
        if (isnan(o->q)) o->q = (double)batch / (double)n;
    }
    if (isnan(o->q) || isnan(o->delta)) return cli_usage_error("privacy", "--q and --delta are required");
    if (o->w != WANT_STEPS && isnan(o->steps)) return cli_usage_error("privacy", "%s needs --steps", o->what);
    if (o->w != WANT_SIGMA && isnan(o->sigma)) return cli_usage_error("privacy", "%s needs --sigma", o->what);
    if (o->w != WANT_EPSILON && isnan(o->eps)) return cli_usage_error("privacy", "%s needs --epsilon", o->what);
    *steps = 0;
    *max_steps = 100000000;
    int rc = parse_count("--steps", o->steps, steps);
    if (rc == 0) rc = parse_count("--max-steps", o->max_steps, max_steps);
    return rc;
}

/* Compute and print the answer, with the epsilon it spends; d says how it was found. */
static int answer(query *o, long steps, long max_steps, dp_accounting_detail *d, dp_err *err)
{
    double eps = NAN;
    const char *name = dp_accountant_name(o->acc);
    int rc;
    if (o->w == WANT_EPSILON) {
        rc = dp_accountant_epsilon(o->acc, o->q, o->sigma, steps, o->delta, &eps, d, err);
        if (rc == 0)
            printf("epsilon = %.6g  (delta %g, sigma %g, q %g, %ld steps; %s)\n", eps,
                   o->delta, o->sigma, o->q, steps, name);
    } else if (o->w == WANT_SIGMA) {
        rc = dp_accountant_sigma(o->acc, o->q, steps, o->delta, o->eps, &o->sigma, err);
        if (rc == 0) rc = dp_accountant_epsilon(o->acc, o->q, o->sigma, steps, o->delta, &eps, d, err);
        if (rc == 0)
            printf("sigma = %.6g  (spends epsilon %.6g <= %g; delta %g, q %g, %ld steps; %s)\n",
                   o->sigma, eps, o->eps, o->delta, o->q, steps, name);
    } else {
        rc = dp_accountant_steps(o->acc, o->q, o->sigma, o->delta, o->eps, max_steps, &steps, err);
        if (rc == 0) rc = dp_accountant_epsilon(o->acc, o->q, o->sigma, steps, o->delta, &eps, d, err);
        if (rc == 0)
            printf("steps = %ld  (spends epsilon %.6g <= %g; delta %g, sigma %g, q %g; %s)%s\n",
                   steps, eps, o->eps, o->delta, o->sigma, o->q, name,
                   steps == max_steps ? " (the --max-steps limit)" : "");
    }
    o->steps = (double)steps;
    return rc;
}

int cli_privacy(int argc, char **argv)
{
    query o;
    long steps = 0, max_steps = 0;
    int status = parse_args(argc, argv, &o);
    if (status >= 0) return status;
    if ((status = resolve(&o, &steps, &max_steps))) return status;
    dp_err err;
    dp_err_clear(&err);
    dp_accounting_detail d = {0};
    if (answer(&o, steps, max_steps, &d, &err)) {
        cli_print_error(&err);
        return EXIT_USAGE;
    }
    steps = (long)o.steps;
    /* At an end of the order grid the optimum may lie outside it: the bound still holds
     * but may be loose, and the user should know. */
    if (d.order_at_edge)
        fprintf(stderr, "dperm: note: the best RDP order (%g) is at the end of the order grid; "
                        "the epsilon is an upper bound but may be loose\n", d.order);
    if (o.verbose) {
        want w = o.w;
        printf("  %-14s %14s  %s\n", "accountant", w == WANT_EPSILON ? "epsilon" : w == WANT_SIGMA ? "sigma" : "steps",
               "details");
        for (int a = 1; a <= DP_ACCOUNTANT_COUNT; a++)
            verbose_row(w, (dp_accountant)a, o.q, o.sigma, steps, o.delta, o.eps, max_steps);
        printf("  The rows analyse different batch sampling and neighbour relations: a run's\n"
               "  epsilon_tight uses pld for Poisson batches (add/remove), pld_wor for\n"
               "  fixed-size batches without replacement (replace-one) and pld at q = 1 for\n"
               "  the full batch; the others bound the same schedule less tightly, or (the\n"
               "  theorems) claim a bound dperm checks against these.\n");
    }
    return EXIT_OK;
}

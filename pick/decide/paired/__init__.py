# -----------------------------------------------------------------------------
# pick/decide/paired/__init__.py
# -----------------------------------------------------------------------------
#
# The statistics of paired rounds, one module for every caller: per-round
# ratios of two contenders run back to back, summarised two ways.
#
#   ratio.py        PairedRatio, the one answer every test returns and
#                   every reporter reads (estimate, interval, p, n, method,
#                   processes, between-process share, MDE)
#   sign.py         the median ratio with its sign-test interval and exact
#                   sign test (paired, fmt_interval, fmt_p): what pick's
#                   rounds, tables and repro read
#   process.py      the same ratios from several fresh processes, at the
#                   process level: a t interval over the processes'
#                   medians, the between-process share of the variance,
#                   the lag-1 autocorrelation (process_paired)
#   signed_rank.py  the Hodges-Lehmann ratio with its exact Wilcoxon
#                   signed-rank interval, p and MDE (rank_paired,
#                   fmt_rank_paired): what the end-to-end validation and
#                   the servers' side-by-side drivers read
#
# Callers import the names from here (`from pick.paired import
# PairedRatio`). Standard library and pick's bottom layers only.

from pick.decide.paired.ratio import METHODS, PairedRatio
from pick.decide.paired.sign import (MIN_ROUNDS,
                                     binom_cdf,
                                     fmt_interval,
                                     fmt_p,
                                     interval_rank,
                                     log_median,
                                     paired,
                                     sign_test_p,
                                     two_means_split)
from pick.decide.paired.process import (MIN_PROCESSES,
                                        between_share,
                                        by_process,
                                        lag1,
                                        process_paired,
                                        processes_for_equivalence,
                                        t_p,
                                        t_quantile)
from pick.decide.paired.signed_rank import (ALPHA,
                                            DRAWS,
                                            MAD_SCALE,
                                            MC_MARGIN,
                                            POWER,
                                            SEED,
                                            chi2_quantile,
                                            fmt_rank_paired,
                                            hl_interval,
                                            hodges_lehmann,
                                            mde,
                                            mde_sigma_units,
                                            min_rounds,
                                            rank_paired,
                                            signed_rank_p,
                                            spread,
                                            spread_upper)

__all__ = [
    "ALPHA",
    "between_share",
    "binom_cdf",
    "by_process",
    "chi2_quantile",
    "DRAWS",
    "fmt_interval",
    "fmt_p",
    "fmt_rank_paired",
    "hl_interval",
    "hodges_lehmann",
    "interval_rank",
    "lag1",
    "log_median",
    "MAD_SCALE",
    "METHODS",
    "MC_MARGIN",
    "mde",
    "mde_sigma_units",
    "MIN_PROCESSES",
    "MIN_ROUNDS",
    "min_rounds",
    "paired",
    "POWER",
    "process_paired",
    "processes_for_equivalence",
    "rank_paired",
    "PairedRatio",
    "SEED",
    "sign_test_p",
    "signed_rank_p",
    "spread",
    "spread_upper",
    "t_p",
    "t_quantile",
    "two_means_split",
]

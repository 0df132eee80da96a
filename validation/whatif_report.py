# -----------------------------------------------------------------------------
# validation/whatif_report.py
# -----------------------------------------------------------------------------
#
# whatif.py's answer in REPORT.md's words: the section "Your server at R
# requests/s" (one line per component: the baseline's share, the exchange
# rate, the best prediction, the candidate's check), where each choice
# would matter, every implementation's prediction, the verdicts, and a
# chart; and, for a probe site, the most the best implementation of its
# family could buy (Amdahl's bound: the site's share if it cost what the
# family's slowest implementation costs, removed down to the fastest's).

from __future__ import annotations

import math
from typing import Any, Optional

from pick.records import ValidationRow
from validation import micro, model, predict
from validation.cases import MARGIN


def _ratio(e: Optional[dict[str, float]]) -> str:
    return predict.ratio_iv(e)


def _pct(e: Optional[dict[str, float]]) -> str:
    return predict.pct_iv(e)


def _matters(e: dict[str, float], margin: float) -> str:
    """Where a predicted ratio stands against the margin: > 1 is better."""
    if e["low"] > 1 + margin:
        return "better by more than %g%%" % (100 * margin)
    if e["high"] < 1 / (1 + margin):
        return "worse by more than %g%%" % (100 * margin)
    if e["low"] >= 1 / (1 + margin) and e["high"] <= 1 + margin:
        return "within ±%g%%" % (100 * margin)
    return "not told apart from ±%g%%" % (100 * margin)


def heading(result: dict[str, Any]) -> str:
    rate = str(result.get("rate", "max"))
    unit = result.get("unit", "request")
    load = str(result.get("load") or "")
    if load and "{rate}" not in load:
        return "Your server under your load command"
    if rate == "max":
        return "Your server under wrk, closed loop, %s connections" % (
            result.get("connections"))
    return "Your server at %s %ss/s%s" % (
        "{:,}".format(int(float(rate))) if float(rate).is_integer()
        else rate, unit, " (your load command)" if load else "")


def where_it_matters(row: ValidationRow, margin: float) -> str:
    """One sentence: which implementations the model says would matter."""
    m = row.model or {}
    pred = m.get("predicted") or {}
    if not pred:
        return "%s: no prediction (%s)." % (
            row.component, row.model_note or "no model")
    groups: dict[str, list[str]] = {}
    for impl in sorted(pred, key=lambda x: -pred[x]["est"]):
        if impl == row.baseline:
            continue
        groups.setdefault(_matters(pred[impl], margin), []).append(
            "%s %.3gx" % (impl, pred[impl]["est"]))
    parts = ["%s: %s" % (k, ", ".join(v)) for k, v in groups.items()]
    return "%s (baseline %s, %s of the server's CPU): %s." % (
        row.component, row.baseline, _pct(m.get("share")),
        "; ".join(parts) if parts else "no other implementation")


def _fit(row: ValidationRow, micro_costs: model.Micro, baseline: str
         ) -> Optional[model.Model]:
    """The model from the row's rounds (CPU per unit; the controls' d and
    2d) with micro_costs; None without a clean round or a slope."""
    rounds = predict.model_rounds(row.rounds, predict.injected(row), True,
                                  True)
    return model.fit(rounds, micro_costs, baseline) if rounds else None


def rates_only(row: ValidationRow) -> Optional[dict[str, Any]]:
    """The exchange rate and the operations per unit where the row has no
    model (no micro costs of its baseline): the rounds alone give them."""
    if row.model or not row.rounds:
        return None
    fit = _fit(row, {}, "-")
    return None if fit is None else dict(model.model_json(fit),
                                         predicted={})


def _summary(row: ValidationRow) -> list[str]:
    m = row.model or row.rates or {}
    pred = m.get("predicted") or {}
    best = max((x for x in pred if x != row.baseline),
               key=lambda x: float(pred[x]["est"]), default=None)
    check = (m.get("check") or {}).get("outcome", "not checked")
    return [row.component, row.baseline, _pct(m.get("share")),
            predict._iv(m.get("exchange_rate")),
            "%s %s" % (best, _ratio(pred[best])) if best else "-",
            row.winner or "-", _ratio(m.get("candidate")),
            predict.measured_iv(row.e2e), check, row.verdict or "-"]


HEAD = ["component", "baseline", "share", "exchange rate", "best predicted",
        "checked", "predicted", "measured", "check", "verdict"]


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def markdown(result: dict[str, Any]) -> str:
    """WHATIF.md."""
    margin = float(result.get("margin") or MARGIN)
    lines = ["# whatif: `%s`" % result.get("server", "?"), "",
             "## " + heading(result), ""]
    rows = [r for r in result.get("rows", []) if r.case != "-"]
    first = next((r for r in rows if r.records), None)
    lines.append(
        "Each component ran in rounds of its baseline, its candidate and the "
        "baseline slowed by d and 2d ns per operation (the controls), "
        "%s; ratios > 1 mean the implementation makes the server cheaper "
        "(or faster), intervals are %s. Micro costs from `%s`." % (
            "the server on CPUs %s and the load on %s" % (
                first.records[0].get("server_cpus") or "any",
                first.records[0].get("client_cpus") or "any")
            if first else "no run", "95% bootstrap over the rounds",
            result.get("results_dir", "?")))
    lines.append("")
    if "probe" in result:
        lines += probe_lines(result["probe"], margin)
        lines.append("")
    lines += _table(HEAD, [_summary(r) for r in rows])
    if "probe" in result:  # the row is the probe's own cost: off/counting
        lines += ["", "The row: the site off against counting, the probe's "
                  "own cost end to end.", ""]
        rows = []
    else:
        lines += ["", "Where each choice would matter (the predicted ratio "
                  "against ±%g%%):" % (100 * margin), ""]
    lines += ["- " + where_it_matters(r, margin) for r in rows]
    nothing = [r for r in result.get("rows", []) if r.case == "-"]
    lines += ["- %s: %s" % (r.component, r.verdict or "-") for r in nothing]
    predicted = [r for r in rows if (r.model or {}).get("predicted")]
    if predicted:
        lines += ["", "### Every implementation's prediction"]
    lines.append("")
    for r in predicted:
        pred = (r.model or {})["predicted"]
        lines += ["%s (baseline %s):" % (r.component, r.baseline), ""]
        order = sorted(pred, key=lambda k: -float(pred[k]["est"]))
        lines += _table(["implementation", "predicted", "micro ns/op",
                         "from"],
                        [[x, _ratio(pred[x]), "%.4g" % pred[x]["micro_ns"],
                          pred[x]["source"]] for x in order])
        lines.append("")
    lines += ["### The rounds, in the validation's words", ""]
    for r in result.get("rows", []):
        lines.append("- " + (r.sentence or r.verdict or "-"))
        if r.model:
            lines.append("  " + predict.model_sentence(r))
    for n in result.get("notes", []):
        lines.append("- note: " + n)
    lines.append("")
    return "\n".join(lines)


def chart(result: dict[str, Any], path: str) -> str:
    """Every implementation's predicted ratio per component, the checked
    candidate's measured one beside it; the path, or "" without
    matplotlib or predictions."""
    rows = [r for r in result.get("rows", [])
            if (r.model or {}).get("predicted")]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    if not rows:
        return ""
    fig, axes = plt.subplots(len(rows), 1, squeeze=False,
                             figsize=(7, 1.2 + 0.35 * sum(
                                 len(r.model["predicted"]) for r in rows)))
    margin = float(result.get("margin") or MARGIN)
    for ax, r in zip(axes[:, 0], rows):
        pred = r.model["predicted"]
        names = sorted(pred, key=lambda k: float(pred[k]["est"]))
        ys = range(len(names))
        est = [pred[n]["est"] for n in names]
        err = [[e - pred[n]["low"] for n, e in zip(names, est)],
               [pred[n]["high"] - e for n, e in zip(names, est)]]
        ax.errorbar(est, list(ys), xerr=err, fmt="o", color="tab:blue",
                    label="predicted")
        e2e = r.e2e or {}
        if r.winner in names and isinstance(e2e.get("ratio"), float):
            y = names.index(r.winner)
            ax.plot([e2e["ratio"]], [y], "D", color="tab:red",
                    label="measured")
        ax.axvspan(1 / (1 + margin), 1 + margin, color="0.9")
        ax.axvline(1.0, color="0.5", lw=0.8)
        ax.set_yticks(list(ys))
        ax.set_yticklabels(names, fontsize=7)
        ax.set_title("%s (baseline %s)" % (r.component, r.baseline),
                     fontsize=8)
        ax.legend(fontsize=6, loc="lower right")
    axes[-1, 0].set_xlabel("server cost ratio over the baseline (> 1: "
                           "cheaper)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --- a probe site ----------------------------------------------------------

def probe_bound(row: ValidationRow, results_dir: str, site: str, family: str,
                group: Optional[str] = None) -> dict[str, Any]:
    """The site's exchange rate and passes per unit from the probe's rounds
    (counting: the baseline at 0 ns; the controls at d and 2d), and the
    family's Amdahl bound: were the site's component as costly per pass as
    the family's slowest implementation, its share, and the ratio the
    fastest would give; group: the micro class (winners.json's source).
    "why" where it cannot be made. The row's rates come from the same fit,
    so that the table and the bound quote one interval."""
    out: dict[str, Any] = dict(site=site, family=family)
    if _fit(row, {}, "-") is None:
        out["why"] = "no round with a clean baseline and a slope"
        return out
    mc = micro.micro_costs(results_dir, family, group,
                           int(row.blocksize or 0), False)
    costs = mc.confirm or mc.sweep
    med = {x: sorted(v.values())[len(v) // 2] for x, v in costs.items() if v}
    if len(med) < 2:
        fit = _fit(row, {}, "-")
        out.update(why="no micro costs of %s in %s" % (
            family, " or ".join(mc.files.values())))
    else:
        slow = max(med, key=lambda x: med[x])
        fast = min(med, key=lambda x: med[x])
        fit = _fit(row, costs, slow)
        out.update(slowest=slow, fastest=fast, slowest_ns=med[slow],
                   fastest_ns=med[fast], metric=mc.metric.what)
    if fit is None:
        out["why"] = "the controls gave no slope"
        return out
    j = model.model_json(fit)
    row.rates = dict(j, share=None, predicted={})
    out.update(exchange_rate=j["exchange_rate"],
               passes_per_unit=j["ops_per_unit"],
               amplification=j["amplification"],
               cost_ns_per_unit=j["cost_ns_per_unit"])
    if "slowest" in out:
        pred = fit.predicted.get(out["fastest"])
        out.update(share=j["share"],
                   bound=None if pred is None else pred.as_json())
    return out


def probe_lines(p: dict[str, Any], margin: float) -> list[str]:
    """The probe's answer in a few lines."""
    lines = ["Probe site `%s` (family %s): exchange rate %s ns per request "
             "per ns spun at the site, %s passes per request (amplification "
             "%s), the server's %s ns per request." % (
                 p["site"], p["family"], predict._iv(p.get("exchange_rate")),
                 predict._iv(p.get("passes_per_unit")),
                 predict._iv(p.get("amplification")),
                 predict._iv(p.get("cost_ns_per_unit")))]
    if p.get("why"):
        lines.append("No bound: %s." % p["why"])
    if p.get("bound"):
        b = p["bound"]
        lines.append(
            "Were your component at `%s` as costly per pass as %s (%.4g ns, "
            "%s), it would be %s of the server's CPU, and %s (%.4g ns) would "
            "make the server at most %s (%s). Where your component can be "
            "added to the family (docs/components.md), `whatif` can then "
            "measure it like the others." % (
                p["site"], p["slowest"], p["slowest_ns"], p["metric"],
                _pct(p.get("share")), p["fastest"], p["fastest_ns"],
                _ratio(b), _matters(b, margin) if all(
                    math.isfinite(b[k]) for k in ("low", "high"))
                else "unbounded"))
    return lines

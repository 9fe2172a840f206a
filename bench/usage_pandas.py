"""pandas baseline for bench/usage_vs_duckdb.sh.

Reads an nvidia-smi CSV log and computes the per-GPU hourly aggregates that bench_usage_ingest
writes (gpu,hour,count,mean_util,mean_mem,max_temp). Run with Debian's /usr/bin/python3.
Usage: usage_pandas.py FILE AGGREGATES.csv
Prints `seconds:` (ingestion + aggregation, not the output) and `rows:`.
"""
import sys
import time

import numpy as np
import pandas as pd

kNames = ["ts", "idx", "uuid", "util", "mem", "memtot", "temp", "power"]


def decode(column, convert):
    """Converts a categorical column through its categories, once per distinct value."""
    return convert(column.cat.categories)[column.cat.codes.to_numpy()]


def hourly(path):
    # The C parser with explicit types. Text columns are read as categories: the parser hashes
    # them in C (no Python string per row) and the few distinct values ('93 %', '31000 MiB', one
    # timestamp per second) are decoded once each, far faster than per-row string methods.
    df = pd.read_csv(path, sep=",", skipinitialspace=True, header=0, names=kNames, usecols=[0, 2, 3, 4, 6],
                     dtype={"ts": "category", "uuid": "category", "util": "category", "mem": "category",
                            "temp": np.int64}, engine="c")
    hour = decode(df["ts"], lambda c: pd.to_datetime(c.str[:13], format="%Y/%m/%d %H").to_numpy()
                  .astype("datetime64[h]").astype(np.int64))
    util = decode(df["util"], lambda c: c.str[:-2].astype(np.int64).to_numpy())
    mem = decode(df["mem"], lambda c: c.str[:-4].astype(np.int64).to_numpy())
    frame = pd.DataFrame({"gpu": df["uuid"], "hour": hour, "util": util, "mem": mem, "temp": df["temp"]})
    agg = frame.groupby(["gpu", "hour"], observed=True, sort=True).agg(
        n=("util", "size"), util_sum=("util", "sum"), mem_sum=("mem", "sum"), max_temp=("temp", "max"))
    # Sums of whole numbers are exact: sum/count is the same double as in gpuplan and DuckDB.
    agg["mean_util"] = agg["util_sum"].astype(np.float64) / agg["n"]
    agg["mean_mem"] = agg["mem_sum"].astype(np.float64) / agg["n"]
    return agg


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: usage_pandas.py FILE AGGREGATES.csv")
    start = time.perf_counter()
    agg = hourly(sys.argv[1])
    seconds = time.perf_counter() - start
    with open(sys.argv[2], "w") as out:
        out.write("gpu,hour,count,mean_util,mean_mem,max_temp\n")
        for (gpu, hour), row in zip(agg.index, agg.itertuples(index=False)):
            out.write("%s,%d,%d,%.6f,%.6f,%d\n" % (gpu, hour, row.n, row.mean_util, row.mean_mem, row.max_temp))
    print("seconds: %.4f\nrows: %d" % (seconds, len(agg)))


if __name__ == "__main__":
    main()

//! `--shard auto`: which part of a split run this process plays, read from
//! the scheduler that started it (a Slurm job array, a Kubernetes Indexed
//! Job, GNU parallel), so one command line serves every task of the array.

use super::schedule::Shard;

/// A `--shard` value that names no part, or an environment that does not say which.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("--shard {0}: expected K/N (1 <= K <= N, e.g. 2/4), auto or auto/N")]
    Syntax(String),
    #[error(
        "--shard {0}: no scheduler told this process its part: none of SLURM_ARRAY_TASK_ID \
         (a Slurm job array), JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or PARALLEL_SEQ \
         (GNU parallel) is set; pass --shard K/N"
    )]
    NoScheduler(String),
    #[error("--shard {spec}: {var}={value} is not a number")]
    NotANumber {
        spec: String,
        var: &'static str,
        value: String,
    },
    #[error(
        "--shard {spec}: {var} is set but the number of parts is not known; pass --shard auto/N"
    )]
    NoCount { spec: String, var: &'static str },
    #[error("--shard {spec}: {from} makes this part {index} of {count}, outside 1..={count}")]
    OutOfRange {
        spec: String,
        from: String,
        index: i64,
        count: i64,
    },
}

/// Reads `spec` (`K/N`, `auto` or `auto/N`); `auto` takes the part from the
/// environment `env` (a lookup of variable names, `std::env::var` in the
/// binaries):
/// - Slurm array, `auto`: the task's place in the array as submitted, 1 plus
///   (`SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN`) / `SLURM_ARRAY_TASK_STEP`,
///   of `SLURM_ARRAY_TASK_COUNT`; `auto/N`: part `SLURM_ARRAY_TASK_ID` of N
///   (`--array=1-N`), which stays right when some tasks are resubmitted;
/// - Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` + 1 (0-based there) of N;
/// - GNU parallel: `PARALLEL_SEQ` (1-based) of N.
pub fn resolve(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, ShardError> {
    let syntax = || ShardError::Syntax(spec.to_string());
    let Some(rest) = spec.strip_prefix("auto") else {
        return spec.parse::<Shard>().map_err(|_| syntax());
    };
    let given: Option<i64> = match rest {
        "" => None,
        r => Some(
            r.strip_prefix('/')
                .and_then(|n| n.trim().parse::<i64>().ok())
                .filter(|&n| n >= 1)
                .ok_or_else(syntax)?,
        ),
    };
    let number = |var: &'static str| -> Result<Option<i64>, ShardError> {
        match env(var) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => v
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| ShardError::NotANumber {
                    spec: spec.to_string(),
                    var,
                    value: v,
                }),
        }
    };
    let (index, count, from) = if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        match given {
            // The task id is the part: `--array=1-N`, or any subset of it
            // resubmitted (`--array=3` reruns part 3 of N).
            Some(n) => (
                id,
                n,
                format!("SLURM_ARRAY_TASK_ID={id} (use --array=1-{n})"),
            ),
            None => {
                let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
                let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
                let count =
                    number("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| ShardError::NoCount {
                        spec: spec.to_string(),
                        var: "SLURM_ARRAY_TASK_ID",
                    })?;
                let from = format!("SLURM_ARRAY_TASK_ID={id} (MIN={min}, STEP={step})");
                ((id - min) / step + 1, count, from)
            }
        }
    } else {
        let (var, first) = if number("JOB_COMPLETION_INDEX")?.is_some() {
            ("JOB_COMPLETION_INDEX", 0)
        } else if number("PARALLEL_SEQ")?.is_some() {
            ("PARALLEL_SEQ", 1)
        } else {
            return Err(ShardError::NoScheduler(spec.to_string()));
        };
        let value = number(var)?.unwrap_or_default();
        let count = given.ok_or_else(|| ShardError::NoCount {
            spec: spec.to_string(),
            var,
        })?;
        (value - first + 1, count, format!("{var}={value}"))
    };
    let out_of_range = || ShardError::OutOfRange {
        spec: spec.to_string(),
        from: from.clone(),
        index,
        count,
    };
    if index < 1 || index > count {
        return Err(out_of_range());
    }
    let index = u32::try_from(index).map_err(|_| out_of_range())?;
    let count = u32::try_from(count).map_err(|_| out_of_range())?;
    Ok(Shard { index, count })
}

/// [`resolve`] against this process's environment.
pub fn resolve_env(spec: &str) -> Result<Shard, ShardError> {
    resolve(spec, &|k| std::env::var(k).ok())
}

/// Part `shard` of `total` items numbered from 0, as one contiguous range:
/// the parts are disjoint, cover every item, and differ in size by at most one.
pub fn range_of(shard: Shard, total: usize) -> std::ops::Range<usize> {
    let (k, n) = (shard.index as usize, shard.count as usize);
    (k - 1) * total / n..k * total / n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    fn shard(index: u32, count: u32) -> Shard {
        Shard { index, count }
    }

    #[test]
    fn a_slurm_array_names_its_task_from_the_lowest_id() {
        let env = [
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(resolve("auto", &with(&env)), Ok(shard(4, 4)));
        // An array 0-6:2 has tasks 0, 2, 4, 6.
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(resolve("auto", &with(&stepped)), Ok(shard(3, 4)));
        // auto/N: the id is the part, also for a task resubmitted alone.
        let rerun = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
        ];
        assert_eq!(resolve("auto", &with(&rerun)), Ok(shard(1, 1)));
        assert_eq!(resolve("auto/4", &with(&rerun)), Ok(shard(3, 4)));
        let e = resolve("auto/4", &with(&env)).unwrap_err().to_string();
        assert!(
            e.contains("part 7 of 4") && e.contains("--array=1-4"),
            "{e}"
        );
    }

    #[test]
    fn kubernetes_and_parallel_need_the_count() {
        let k8s = [("JOB_COMPLETION_INDEX", "0")];
        assert_eq!(resolve("auto/16", &with(&k8s)), Ok(shard(1, 16)));
        let e = resolve("auto", &with(&k8s)).unwrap_err();
        assert!(
            matches!(
                e,
                ShardError::NoCount {
                    var: "JOB_COMPLETION_INDEX",
                    ..
                }
            ),
            "{e}"
        );
        let par = [("PARALLEL_SEQ", "16")];
        assert_eq!(resolve("auto/16", &with(&par)), Ok(shard(16, 16)));
        assert!(resolve("auto/15", &with(&par)).is_err());
    }

    #[test]
    fn no_scheduler_is_an_error_not_shard_one_of_one() {
        let e = resolve("auto", &with(&[])).unwrap_err();
        assert_eq!(e, ShardError::NoScheduler("auto".into()));
        assert!(e.to_string().contains("pass --shard K/N"));
        let e = resolve("auto", &with(&[("PARALLEL_SEQ", "x")])).unwrap_err();
        assert!(
            e.to_string().contains("PARALLEL_SEQ=x is not a number"),
            "{e}"
        );
        for bad in ["auto/0", "auto/", "autox", "0/4", "5/4", "2"] {
            assert!(
                matches!(
                    resolve(bad, &with(&[("PARALLEL_SEQ", "1")])),
                    Err(ShardError::Syntax(_))
                ),
                "{bad}"
            );
        }
        assert_eq!(resolve("2/4", &with(&[])), Ok(shard(2, 4)));
    }

    #[test]
    fn ranges_are_disjoint_and_cover_everything() {
        for total in [0, 1, 7, 100] {
            for n in 1..=5 {
                let mut next = 0;
                for k in 1..=n {
                    let r = range_of(shard(k, n), total);
                    assert_eq!(r.start, next, "{total} {k}/{n}");
                    assert!(r.len() <= total.div_ceil(n as usize));
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }
}

//! `--shard K/N` and `--shard auto`, shared by `study` and `census`: which slice of the work this
//! run does. `auto` reads the index and count from the batch system that started the run.

/// The shard as `(K, N)`, K 1-based.
pub type ShardArg = (u64, u64);

/// `--shard` as given: `K/N`, or `auto`, read from the environment when the run starts (so a
/// command line parses anywhere, and the error names the variable where it runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardChoice {
    Fixed(ShardArg),
    Auto,
}

impl ShardChoice {
    /// The shard this run is: `auto` read from the environment now.
    pub fn resolve(self) -> Result<ShardArg, String> {
        match self {
            ShardChoice::Fixed(shard) => Ok(shard),
            ShardChoice::Auto => from_env(&|name| std::env::var(name).ok()),
        }
    }
}

/// Where `--shard auto` looks, in order: an index (0-based, as every batch system below counts)
/// and the count.
const INDEX_VARIABLES: [&str; 3] = [
    // Set by the workflow from `${{ strategy.job-index }}` (GitHub exposes no variable itself).
    "DRIFTLAB_SHARD_INDEX",
    // A Kubernetes Indexed Job.
    "JOB_COMPLETION_INDEX",
    // A Slurm job array (its first task id may be 1: SLURM_ARRAY_TASK_MIN is subtracted).
    "SLURM_ARRAY_TASK_ID",
];
const COUNT_VARIABLES: [&str; 2] = ["DRIFTLAB_SHARD_COUNT", "SLURM_ARRAY_TASK_COUNT"];

/// Parses `K/N` (1 ≤ K ≤ N) or `auto`.
pub fn parse(text: &str) -> Result<ShardChoice, String> {
    if text.trim() == "auto" {
        return Ok(ShardChoice::Auto);
    }
    let bad = || format!("{text:?}: expected K/N with 1 <= K <= N, e.g. 3/8, or auto");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok(ShardChoice::Fixed((k, n)))
}

/// `--shard auto` from the variables `var` returns.
pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<ShardArg, String> {
    let number = |name: &str| -> Result<Option<u64>, String> {
        match var(name) {
            None => Ok(None),
            Some(text) => text
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| format!("--shard auto: {name}={text:?} is not a whole number")),
        }
    };
    // The first of `names` that is set, with its value.
    let first_set = |names: &[&'static str]| -> Result<Option<(&'static str, u64)>, String> {
        for &name in names {
            if let Some(value) = number(name)? {
                return Ok(Some((name, value)));
            }
        }
        Ok(None)
    };
    let Some((index_name, value)) = first_set(&INDEX_VARIABLES)? else {
        return Err(format!(
            "--shard auto: no shard index in the environment (set one of {})",
            INDEX_VARIABLES.join(", ")
        ));
    };
    let first = match index_name {
        "SLURM_ARRAY_TASK_ID" => number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0),
        _ => 0,
    };
    let index = value.checked_sub(first).ok_or_else(|| {
        format!("--shard auto: {index_name}={value} is below SLURM_ARRAY_TASK_MIN={first}")
    })?;
    let Some((count_name, count)) = first_set(&COUNT_VARIABLES)? else {
        return Err(format!(
            "--shard auto: {index_name} gives the index but nothing gives the count (set {})",
            COUNT_VARIABLES.join(" or ")
        ));
    };
    if index >= count {
        return Err(format!(
            "--shard auto: {index_name} gives index {index} (0-based), not below {count_name}={count}"
        ));
    }
    Ok((index + 1, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<ShardArg, String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_env(&|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn k_of_n_is_checked() {
        assert_eq!(parse("3/8"), Ok(ShardChoice::Fixed((3, 8))));
        assert_eq!(parse("auto"), Ok(ShardChoice::Auto));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn auto_reads_each_batch_system() {
        // GitHub Actions, through the workflow's own variables (job-index is 0-based).
        let github = [("DRIFTLAB_SHARD_INDEX", "2"), ("DRIFTLAB_SHARD_COUNT", "3")];
        assert_eq!(with(&github), Ok((3, 3)));
        // A Kubernetes Indexed Job, the count given beside it.
        let kubernetes = [("JOB_COMPLETION_INDEX", "0"), ("DRIFTLAB_SHARD_COUNT", "4")];
        assert_eq!(with(&kubernetes), Ok((1, 4)));
        // Slurm arrays numbered from 1 and from 0.
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert_eq!(with(&slurm), Ok((2, 3)));
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert_eq!(with(&slurm), Ok((3, 3)));
    }

    #[test]
    fn auto_says_what_is_missing_or_wrong() {
        let err = with(&[]).unwrap_err();
        assert!(err.contains("JOB_COMPLETION_INDEX"), "{err}");
        let err = with(&[("JOB_COMPLETION_INDEX", "1")]).unwrap_err();
        assert!(err.contains("DRIFTLAB_SHARD_COUNT"), "{err}");
        let err =
            with(&[("JOB_COMPLETION_INDEX", "3"), ("DRIFTLAB_SHARD_COUNT", "3")]).unwrap_err();
        assert!(err.contains("not below"), "{err}");
        let err = with(&[("JOB_COMPLETION_INDEX", "x")]).unwrap_err();
        assert!(err.contains("not a whole number"), "{err}");
    }
}

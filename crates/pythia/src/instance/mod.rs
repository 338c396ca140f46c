//! The instance: the memory structures and background threads over one database directory.
//!
//! ```text
//! Instance::open(dir)
//!   lock the directory (a second instance gets ORA-01102)
//!   read the control file ---- none, or a creation that did not finish (the files it left
//!        |                     are removed): create the database (control file marked
//!        |                     creating, files, bitmap, undo, dictionary; checkpoint; the
//!        |                     mark cleared)
//!        |
//!        +-- exists: repair torn blocks from the double-write file
//!                    roll forward from the checkpoint        (redo/recovery.rs)
//!   start LGWR, DBWR and (log_archive_dest set) ARC0
//!   roll back transactions that were active at the crash     (transaction::recover)
//!   checkpoint, and the database is open
//! ```
//!
//! Shutdown (also on drop): checkpoint everything, mark the control file clean, stop the
//! background threads. An instance whose files failed (a simulated crash in tests) stops its
//! threads without flushing anything.
//!
//! The alert log, `alert.log` in the directory, records opens, recoveries (what was applied,
//! from where to where, and why it ended), log switches, waits for a log group and ARC0's
//! archiving, and shutdowns, in Oracle's style.

pub mod dbverify;
pub mod logon;

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::access::space::SpaceManager;
use crate::buffer::dbwr::Dbwr;
use crate::buffer::pools::{parse_pool_size, CacheLayout, LruAlgorithm, WORKING_SET_BUFFERS_MIN};
use crate::buffer::{
    AdviceMode, AgingClock, AgingParameters, BufferCache, CoarseClock, RedoFlusher,
};
use crate::error::{Error, Result};
use crate::instrumentation::{self, Enqueue, LatchName, RwLatch, WaitEvent};
use crate::io::datafile::FileSet;
use crate::io::vfs::Vfs;
use crate::parameters::{self, names, Parameters, SetScope};
use crate::redo::archive::Archiver;
use crate::redo::controlfile::{ControlData, ControlFile};
use crate::redo::log::{now_seconds, AlertLog, RedoLog, StreamPosition};
use crate::redo::mtr::Mtr;
use crate::redo::recovery;
use crate::transaction::undo::{self, UndoLayout};
use crate::transaction::{TransactionManager, XID_RESERVATION};

/// The sizes an instance is started with (from the parameters).
#[derive(Clone, Debug)]
pub struct InstanceConfig {
    pub block_size: usize,
    pub cache_bytes: u64,
    pub log_buffer_bytes: u64,
    pub log_file_size: u64,
    pub log_groups: u32,
    pub undo_bytes: u64,
}

impl Default for InstanceConfig {
    fn default() -> Self {
        InstanceConfig {
            block_size: 8192,
            cache_bytes: 64 << 20,
            log_buffer_bytes: 8 << 20,
            log_file_size: 64 << 20,
            log_groups: 3,
            undo_bytes: 256 << 20,
        }
    }
}

impl RedoFlusher for RedoLog {
    fn flush_record(&self, lsn: u64) -> Result<()> {
        RedoLog::flush_record(self, lsn)
    }
}

/// What opening found and did, for the alert log and tests.
#[derive(Clone, Debug, Default)]
pub struct OpenReport {
    pub created: bool,
    pub blocks_repaired: usize,
    pub redo_records_applied: u64,
    pub redo_bytes_applied: u64,
    pub transactions_rolled_back: usize,
    pub undo_records_applied: usize,
    pub recovery_micros: u64,
    /// The roll forward's report (not for a new database): what was applied, from where to
    /// where, and why it ended.
    pub roll_forward: Option<recovery::RollForward>,
}

pub struct Instance {
    dir: PathBuf,
    files: Arc<FileSet>,
    log: Arc<RedoLog>,
    cache: Arc<BufferCache>,
    space: Arc<SpaceManager>,
    transactions: Arc<TransactionManager>,
    dbwr: Arc<Dbwr>,
    archiver: Arc<Archiver>,
    control: Arc<Enqueue<(ControlFile, ControlData)>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    closed: AtomicBool,
    report: OpenReport,
    /// The instance's parameters (`ALTER SYSTEM` changes them; sessions clone them at logon).
    parameters: RwLatch<Parameters>,
    /// Bumped by every ALTER SYSTEM that changes the instance's values: sessions compare it
    /// at each call and inherit the changes (`Parameters::inherit_system_changes`).
    parameters_generation: AtomicU64,
    /// Live user sessions: each is a dedicated server, counted against `processes` and
    /// `sessions` (background threads are not).
    user_sessions: AtomicU64,
    /// Sessions logged on, by user name (DROP USER refuses a user who has one: ORA-01940).
    logged_on: Mutex<std::collections::HashMap<String, usize>>,
    /// The alert log's lines about failed logons, bounded (`logon.rs`).
    failed_logons: Mutex<logon::FailedLogons>,
    catalog: crate::catalog::Catalog,
    library_cache: Arc<crate::library_cache::LibraryCache>,
    _directory_lock: Box<dyn std::any::Any + Send + Sync>,
}

impl InstanceConfig {
    /// The sizes the parameters ask for.
    pub fn from_parameters(parameters: &Parameters) -> InstanceConfig {
        InstanceConfig {
            block_size: parameters.get_integer(names::DB_BLOCK_SIZE) as usize,
            cache_bytes: parameters.get_bytes(names::DB_CACHE_SIZE),
            log_buffer_bytes: parameters.get_bytes(names::LOG_BUFFER),
            log_file_size: parameters.get_bytes(names::LOG_FILE_SIZE),
            log_groups: parameters.get_integer(names::LOG_GROUPS) as u32,
            undo_bytes: parameters.get_bytes(names::UNDO_TABLESPACE_SIZE),
        }
    }
}

/// The cache advice's mode `db_cache_advice` names (the parameter's values are its words).
fn advice_mode(parameters: &Parameters) -> AdviceMode {
    AdviceMode::from_name(&parameters.get_string(names::DB_CACHE_ADVICE)).unwrap_or_default()
}

/// The buffer pools the parameters ask for (`docs/buffer-pools.md`): the Oracle8 parameters
/// (`db_block_buffers`, `db_block_lru_latches`, `buffer_pool_keep`, `buffer_pool_recycle`) or
/// the modern ones (`db_cache_size` — `cache_bytes` here —, `db_keep_cache_size`,
/// `db_recycle_cache_size`), never both (ORA-00381); then seed 001's rules (ORA-00378).
fn cache_layout(
    parameters: &Parameters,
    cache_bytes: u64,
    block_size: usize,
) -> Result<CacheLayout> {
    let cpus = std::thread::available_parallelism().map_or(1, |cpus| cpus.get());
    let buffers_of = |bytes: u64| (bytes / block_size as u64) as usize;
    let keep_text = parameters.get_string(names::BUFFER_POOL_KEEP);
    let recycle_text = parameters.get_string(names::BUFFER_POOL_RECYCLE);
    let old_form = parameters.get_integer(names::DB_BLOCK_BUFFERS) > 0
        || parameters.get_integer(names::DB_BLOCK_LRU_LATCHES) > 0
        || !keep_text.trim().is_empty()
        || !recycle_text.trim().is_empty();
    let keep_bytes = parameters.get_bytes(names::DB_KEEP_CACHE_SIZE);
    let recycle_bytes = parameters.get_bytes(names::DB_RECYCLE_CACHE_SIZE);
    let new_form =
        !parameters.is_default(names::DB_CACHE_SIZE) || keep_bytes > 0 || recycle_bytes > 0;
    if old_form && new_form {
        return Err(Error::new(
            381,
            "cannot use both new and old parameters for buffer cache size specification",
        ));
    }
    let mut layout = if old_form {
        let buffers = match parameters.get_integer(names::DB_BLOCK_BUFFERS) {
            0 => buffers_of(cache_bytes),
            buffers => buffers as usize,
        };
        let keep = parse_pool_size(names::BUFFER_POOL_KEEP, &keep_text)?;
        let recycle = parse_pool_size(names::BUFFER_POOL_RECYCLE, &recycle_text)?;
        let latches = match parameters.get_integer(names::DB_BLOCK_LRU_LATCHES) {
            0 => {
                let default_buffers = buffers.saturating_sub(keep.buffers + recycle.buffers);
                keep.working_sets
                    + recycle.working_sets
                    + (default_buffers / WORKING_SET_BUFFERS_MIN).clamp(1, cpus)
            }
            latches => latches as usize,
        };
        CacheLayout::oracle8(buffers, latches, keep, recycle)?
    } else {
        CacheLayout::modern(
            buffers_of(cache_bytes).max(64),
            buffers_of(keep_bytes),
            buffers_of(recycle_bytes),
            cpus,
        )
    };
    layout.algorithm = LruAlgorithm::from_name(&parameters.get_string(names::DB_LRU_ALGORITHM))
        .unwrap_or_default();
    let integer = |name| parameters.get_integer(name) as u32;
    layout.aging = AgingParameters {
        touch_time: integer(names::DB_AGING_TOUCH_TIME),
        hot_criteria: integer(names::DB_AGING_HOT_CRITERIA),
        stay_count: integer(names::DB_AGING_STAY_COUNT),
        cool_count: integer(names::DB_AGING_COOL_COUNT),
        percent_hot: integer(names::DB_PERCENT_HOT_DEFAULT),
    };
    layout.percent_hot = [
        integer(names::DB_PERCENT_HOT_DEFAULT),
        integer(names::DB_PERCENT_HOT_KEEP),
        integer(names::DB_PERCENT_HOT_RECYCLE),
    ];
    if let threshold @ 1.. = parameters.get_integer(names::SMALL_TABLE_THRESHOLD) {
        layout.small_table_blocks = threshold as usize;
    }
    layout.advice_sample_factor =
        parameters.get_integer(names::DB_CACHE_ADVICE_SAMPLE_FACTOR) as usize;
    layout.check(cpus)?;
    Ok(layout)
}

/// The environment variable whose value a new database's SYSTEM gets as its password
/// (`Instance::open`).
pub const SYSTEM_PASSWORD_VARIABLE: &str = "PYTHIA_PASSWORD";

/// The parameter file read at every open.
pub const PARAMETER_FILE: &str = "init.ora";
/// LGWR's trace file in the database directory (Oracle: `<sid>_lgwr_<pid>.trc`): switches of
/// the log file sync method (`redo/adaptive.rs`).
pub const LGWR_TRACE_FILE: &str = "pythia_lgwr.trc";

impl Instance {
    /// Opens (creating when needed) the database in `dir`: reads `dir/init.ora` when present,
    /// then applies `overrides` (`-p name=value`) for this run only.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("pythia-doc-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// # let overrides = [("db_cache_size", "8M"), ("log_file_size", "4M"), ("undo_tablespace_size", "16M")];
    /// # let instance = pythia::Instance::open(&dir, &overrides)?;
    /// # /*
    /// let instance = pythia::Instance::open("./pythia-data", &[("db_cache_size", "64M")])?;
    /// # */
    /// let mut session = instance.connect()?;
    /// session.execute("create table t (id number primary key, name varchar2(20))")?;
    /// session.execute("insert into t values (1, 'one')")?;
    /// session.execute("commit")?;
    /// let result = session.execute("select name from t where id = 1")?;
    /// assert_eq!(result.rows[0][0].to_string(), "one");
    /// # drop(session);
    /// # drop(instance);
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// # Ok::<(), pythia::Error>(())
    /// ```
    ///
    /// A new database gets the user SYSTEM with the password in the environment variable
    /// `PYTHIA_PASSWORD` ([`SYSTEM_PASSWORD_VARIABLE`]), or without a password when it is
    /// not set (see [`Instance::open_with_password`]).
    pub fn open(dir: impl AsRef<Path>, overrides: &[(&str, &str)]) -> Result<Arc<Instance>> {
        let password = std::env::var(SYSTEM_PASSWORD_VARIABLE).ok();
        Instance::open_with_password(dir, overrides, password.as_deref())
    }

    /// `open`, SYSTEM's password at the database's creation given here (None: SYSTEM gets
    /// no password, and logs on only through the embedded API or a trust-mode server). An
    /// existing database keeps its users as they are: ALTER USER changes a password.
    pub fn open_with_password(
        dir: impl AsRef<Path>,
        overrides: &[(&str, &str)],
        system_password: Option<&str>,
    ) -> Result<Arc<Instance>> {
        let dir = dir.as_ref();
        let vfs = crate::io::vfs::os();
        let parameters = Instance::read_parameters(vfs.as_ref(), dir, overrides)?;
        let config = InstanceConfig::from_parameters(&parameters);
        let clock = Arc::new(CoarseClock::new());
        Instance::start(vfs, dir, config, parameters, clock, system_password)
    }

    /// `open`, with touch-count aging (and the buffer cache's trace) reading time from
    /// `clock` instead of the system's: the lab's experiments run on virtual time so that
    /// they age blocks as the seed's slower runs did.
    pub fn open_with_clock(
        dir: impl AsRef<Path>,
        overrides: &[(&str, &str)],
        clock: Arc<dyn AgingClock>,
    ) -> Result<Arc<Instance>> {
        let dir = dir.as_ref();
        let vfs = crate::io::vfs::os();
        let parameters = Instance::read_parameters(vfs.as_ref(), dir, overrides)?;
        let config = InstanceConfig::from_parameters(&parameters);
        Instance::start(vfs, dir, config, parameters, clock, None)
    }

    /// The parameters `open` would start with: `init.ora` in `dir` if it exists, then the
    /// overrides.
    pub fn read_parameters(
        vfs: &dyn Vfs,
        dir: &Path,
        overrides: &[(&str, &str)],
    ) -> Result<Parameters> {
        let file = dir.join(PARAMETER_FILE);
        let mut parameters = if vfs.exists(&file) {
            Parameters::load_file(&file)?
        } else {
            Parameters::defaults()
        };
        for (name, value) in overrides {
            parameters.set(name, value, SetScope::CommandLine)?;
        }
        Ok(parameters)
    }

    /// Opens (creating when needed) the database in `dir` on the real file system.
    pub fn open_directory(dir: &Path, config: InstanceConfig) -> Result<Arc<Instance>> {
        Instance::open_with(crate::io::vfs::os(), dir, config)
    }

    /// Opens with the given parameters through `vfs`.
    pub fn open_with_parameters(
        vfs: Arc<dyn Vfs>,
        dir: &Path,
        parameters: Parameters,
    ) -> Result<Arc<Instance>> {
        let config = InstanceConfig::from_parameters(&parameters);
        Instance::start(
            vfs,
            dir,
            config,
            parameters,
            Arc::new(CoarseClock::new()),
            None,
        )
    }

    /// Opens the database in `dir` through `vfs` (tests pass a simulated file system).
    pub fn open_with(
        vfs: Arc<dyn Vfs>,
        dir: &Path,
        config: InstanceConfig,
    ) -> Result<Arc<Instance>> {
        Instance::start(
            vfs,
            dir,
            config,
            Parameters::defaults(),
            Arc::new(CoarseClock::new()),
            None,
        )
    }

    fn start(
        vfs: Arc<dyn Vfs>,
        dir: &Path,
        config: InstanceConfig,
        parameters: Parameters,
        clock: Arc<dyn AgingClock>,
        system_password: Option<&str>,
    ) -> Result<Arc<Instance>> {
        vfs.create_dir_all(dir)
            .map_err(|error| Error::io(dir, error))?;
        let directory_lock = lock_directory(vfs.as_ref(), dir)?;
        let control_file = ControlFile::open(vfs.as_ref(), dir)?;
        let mut existing = control_file.read()?;
        // A creation that did not finish (the process died during the first open) left files
        // that no session ever used: remove them and create the database anew. The control
        // file's versions go on from the unfinished one's, so that its slot is not read again.
        let mut control_version = 0;
        let unfinished_creation = existing.take_if(|data| data.creating);
        if let Some(unfinished) = &unfinished_creation {
            control_version = unfinished.version;
            remove_database_files(vfs.as_ref(), dir, unfinished.log_groups)?;
        }
        let block_size = existing
            .as_ref()
            .map_or(config.block_size, |data| data.block_size as usize);
        let log_groups = existing
            .as_ref()
            .map_or(config.log_groups, |data| data.log_groups);
        let log_file_size = existing
            .as_ref()
            .map_or(config.log_file_size, |data| data.log_file_size);
        let undo_blocks = existing
            .as_ref()
            .map_or((config.undo_bytes / block_size as u64) as u32, |data| {
                data.undo_blocks
            });
        let files = Arc::new(FileSet::open(vfs.as_ref(), dir, block_size)?);
        let log = Arc::new(RedoLog::open(
            vfs.as_ref(),
            dir,
            log_groups,
            log_file_size,
            config.log_buffer_bytes as usize,
        )?);
        log.set_alert(alert_writer(dir));
        log.set_direct_writes(matches!(
            parameters.get_string(names::FILESYSTEMIO_OPTIONS).as_str(),
            "DIRECTIO" | "SETALL"
        ));
        log.adaptive().set_trace_file(dir.join(LGWR_TRACE_FILE));
        log.adaptive()
            .set_enabled(parameters.get_bool(names::USE_ADAPTIVE_LOG_FILE_SYNC));
        let layout = cache_layout(&parameters, config.cache_bytes, block_size)?;
        let cache = Arc::new(BufferCache::new(
            block_size,
            &layout,
            clock,
            files.clone(),
            log.clone(),
        ));
        cache.set_multiblock_read_count(
            parameters.get_integer(names::DB_FILE_MULTIBLOCK_READ_COUNT) as usize,
        );
        cache.set_advice(advice_mode(&parameters));
        let space = Arc::new(SpaceManager::new(block_size));
        let layout = UndoLayout {
            block_size,
            total_blocks: undo_blocks,
        };
        let mut startup = Startup {
            log: log.clone(),
            dbwr: None,
            archiver: None,
            threads: Vec::new(),
        };
        let mut report = OpenReport::default();

        let (mut control_data, highest_scn) = match existing {
            None => {
                report.created = true;
                let mut data = ControlData {
                    database_id: database_id(),
                    block_size: block_size as u32,
                    log_groups,
                    log_file_size,
                    checkpoint_lsn: 0,
                    checkpoint_sequence: 1,
                    checkpoint_sequence_start: 0,
                    checkpoint_scn: 1,
                    xid_limit: XID_RESERVATION,
                    created: now_seconds(),
                    undo_blocks,
                    clean_shutdown: false,
                    creating: true,
                    epoch: 1,
                    version: control_version,
                    archived_sequence: 0,
                };
                // Written before anything else is: a crash from here until the end of this
                // open leaves a control file that says the creation did not finish.
                control_file.write(&mut data)?;
                log.start_at(
                    StreamPosition {
                        sequence: 1,
                        sequence_start_lsn: 0,
                        next_lsn: 0,
                    },
                    0,
                    data.epoch,
                )?;
                startup.threads.push(spawn_lgwr(&log));
                let mut mtr = Mtr::new(&cache);
                space.format(&mut mtr, data.database_id)?;
                undo::format(&mut mtr, &layout)?;
                mtr.commit(&log, 1, 0)?;
                (data, 1)
            }
            Some(mut data) => {
                data.epoch += 1;
                report.blocks_repaired = files.repair_from_double_write()?;
                log.begin_recovery();
                let roll = recovery::roll_forward(&cache, &log, &data)?;
                report.redo_records_applied = roll.records;
                report.redo_bytes_applied = roll.redo_bytes;
                report.recovery_micros = roll.elapsed_micros;
                // The current sequence is not archived, even if a sequence of that number was
                // before recovery ended the stream in an earlier one (`redo/archive.rs`).
                data.archived_sequence = data
                    .archived_sequence
                    .min(roll.position.sequence.saturating_sub(1));
                log.start_at(roll.position, data.checkpoint_lsn, data.epoch)?;
                startup.threads.push(spawn_lgwr(&log));
                undo::verify_header(&cache)?;
                space.bootstrap(&cache)?;
                let highest = roll.highest_scn.max(data.checkpoint_scn);
                report.roll_forward = Some(roll);
                (data, highest)
            }
        };
        // Every xid below the reserved limit may have been used before: start past it.
        let next_xid = control_data.xid_limit;
        control_data.xid_limit = next_xid + XID_RESERVATION;
        control_data.clean_shutdown = false;
        control_file.write(&mut control_data)?;
        let xid_limit = control_data.xid_limit;
        log.set_archived_sequence(control_data.archived_sequence);
        let control = Arc::new(Enqueue::new(
            *b"CF",
            WaitEvent::EnqueueCfContention,
            0,
            (control_file, control_data),
        ));
        // ARC0 before anything that may switch logs: with archiving on, a switch can wait
        // for it.
        let archive_control = control.clone();
        let archiver = Archiver::new(
            log.clone(),
            vfs.clone(),
            &parameters.get_string(names::LOG_ARCHIVE_DEST),
            Box::new(move |sequence| record_archived(&archive_control, sequence)),
        );
        startup.archiver = Some(archiver.clone());
        if archiver.claim_thread() {
            startup.threads.push(spawn_arc0(&archiver, &log));
        }

        let reserve_control = control.clone();
        let transactions = Arc::new(TransactionManager::new(
            cache.clone(),
            log.clone(),
            space.clone(),
            layout,
            highest_scn,
            next_xid,
            xid_limit,
            Box::new(move |limit| {
                let mut guard = reserve_control.lock();
                let (file, data) = &mut *guard;
                data.xid_limit = limit;
                file.write(data)
            }),
        ));

        let checkpoint_control = control.clone();
        let checkpoint_log = Arc::downgrade(&log);
        let checkpoint_transactions = Arc::downgrade(&transactions);
        let durable_log = Arc::downgrade(&log);
        let dbwr = Dbwr::new(
            cache.clone(),
            parameters.get_integer(names::DB_WRITER_PROCESSES) as usize,
            Box::new(move |lsn| {
                record_checkpoint(
                    &checkpoint_control,
                    &checkpoint_log,
                    &checkpoint_transactions,
                    lsn,
                )
            }),
            Box::new(move || durable_log.upgrade().map_or(0, |log| log.written_lsn())),
        );
        for writer in 0..dbwr.writers() {
            startup.threads.push(spawn_dbwr(&dbwr, &log, writer));
        }
        startup.dbwr = Some(dbwr.clone());
        let requester: Weak<Dbwr> = Arc::downgrade(&dbwr);
        log.set_checkpoint_requester(Box::new(move |lsn| {
            if let Some(dbwr) = requester.upgrade() {
                dbwr.request_checkpoint(lsn);
            }
        }));

        if !report.created {
            let (rolled_back, applied) = transactions.recover()?;
            report.transactions_rolled_back = rolled_back;
            report.undo_records_applied = applied;
        }
        let storage = crate::catalog::Storage {
            cache: cache.clone(),
            log: log.clone(),
            space: space.clone(),
            transactions: transactions.clone(),
        };
        let catalog = if report.created {
            let verifier = match system_password {
                Some(password) => Some(logon::verifier_text(password)?),
                None => None,
            };
            crate::catalog::Catalog::create(storage, verifier)?
        } else {
            crate::catalog::Catalog::open(storage)?
        };
        let library_cache = Arc::new(crate::library_cache::LibraryCache::new(
            parameters.kgl_bucket_count() as usize,
            parameters.get_bytes(names::SHARED_POOL_SIZE),
            match parameters.get_integer(names::KGL_HOT_OBJECT_COPIES) {
                // 0: Oracle's default, half the CPUs, here at least two.
                0 => std::thread::available_parallelism().map_or(2, |cpus| (cpus.get() / 2).max(2))
                    as u32,
                copies => copies as u32,
            },
        ));
        library_cache
            .set_transient_percent(parameters.get_integer(names::KGHLU_TRANSIENT_PERCENT) as u64);
        let invalidated = library_cache.clone();
        catalog.set_change_hook(Box::new(move |before, after| {
            invalidated.invalidate(&crate::catalog::changed_objects(before, after));
        }));
        let instance = Arc::new(Instance {
            dir: dir.to_path_buf(),
            files,
            log,
            cache,
            space,
            transactions,
            dbwr,
            archiver,
            control,
            threads: Mutex::new(startup.finish()),
            closed: AtomicBool::new(false),
            report,
            parameters: RwLatch::new(LatchName::ParameterTableManagement, parameters),
            parameters_generation: AtomicU64::new(0),
            user_sessions: AtomicU64::new(0),
            logged_on: Mutex::default(),
            failed_logons: Mutex::default(),
            catalog,
            library_cache,
            _directory_lock: directory_lock,
        });
        instance.checkpoint()?;
        if instance.report.created {
            // Everything the creation made is durable (the checkpoint): from now on an open
            // recovers this database instead of creating it.
            let mut guard = instance.control.lock();
            let (file, data) = &mut *guard;
            data.creating = false;
            file.write(data)?;
        }
        if unfinished_creation.is_some() {
            instance.alert(
                "An earlier creation of this database did not finish (its first open was \
                 interrupted): its files were removed",
            );
        }
        if let Some(roll) = &instance.report.roll_forward {
            instance.alert(&roll.alert_text(&instance.log));
        }
        instance.alert(&format!(
            "Database {} ({} byte blocks): {}",
            if instance.report.created { "created" } else { "opened" },
            block_size,
            if instance.report.created {
                "new database".to_string()
            } else {
                format!(
                    "{} redo records ({} bytes) applied in {} us; {} blocks repaired from the double-write file; {} transactions rolled back ({} undo records)",
                    instance.report.redo_records_applied,
                    instance.report.redo_bytes_applied,
                    instance.report.recovery_micros,
                    instance.report.blocks_repaired,
                    instance.report.transactions_rolled_back,
                    instance.report.undo_records_applied
                )
            }
        ));
        Ok(instance)
    }

    pub fn directory(&self) -> &Path {
        &self.dir
    }

    pub fn cache(&self) -> &Arc<BufferCache> {
        &self.cache
    }

    pub fn log(&self) -> &Arc<RedoLog> {
        &self.log
    }

    /// ARC0's state: the archive destination and the archived logs (v$archived_log).
    pub fn archiver(&self) -> &Arc<Archiver> {
        &self.archiver
    }

    pub fn space(&self) -> &Arc<SpaceManager> {
        &self.space
    }

    pub fn transactions(&self) -> &Arc<TransactionManager> {
        &self.transactions
    }

    pub fn files(&self) -> &Arc<FileSet> {
        &self.files
    }

    /// Admits one more user session: ORA-00020 beyond `processes` (each session is a
    /// dedicated server), ORA-00018 beyond `sessions`. Pair with `session_ended`.
    pub(crate) fn admit_session(&self) -> Result<()> {
        let parameters = self.parameters.read();
        let processes = parameters.get_integer(parameters::names::PROCESSES).max(1) as u64;
        let sessions = parameters.get_integer(parameters::names::SESSIONS).max(1) as u64;
        drop(parameters);
        let admitted =
            self.user_sessions
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |live| {
                    (live < processes && live < sessions).then_some(live + 1)
                });
        match admitted {
            Ok(_) => Ok(()),
            Err(_) if processes <= sessions => Err(Error::new(
                20,
                format!("maximum number of processes ({processes}) exceeded"),
            )),
            Err(_) => Err(Error::new(18, "maximum number of sessions exceeded")),
        }
    }

    /// A user session admitted by `admit_session` ended.
    pub(crate) fn session_ended(&self) {
        self.user_sessions.fetch_sub(1, Ordering::AcqRel);
    }

    /// The user sessions of this instance live now (what `processes` and `sessions` bound;
    /// v$session shows the sessions of every instance of the process).
    pub fn user_sessions(&self) -> u64 {
        self.user_sessions.load(Ordering::Acquire)
    }

    /// The instance's parameters (a cheap copy).
    pub fn parameters(&self) -> Parameters {
        self.parameters.read().clone()
    }

    /// ALTER SYSTEM SET: changes the instance's parameters (SCOPE=MEMORY or BOTH) and the
    /// parameter file (SCOPE=SPFILE or BOTH).
    pub fn alter_system_set(
        &self,
        name: &str,
        value: &str,
        scope: parameters::AlterSystemScope,
    ) -> Result<()> {
        let mut parameters = self.parameters.write();
        let mut changed = parameters.clone();
        changed.set(name, value, SetScope::AlterSystem { scope })?;
        if scope != parameters::AlterSystemScope::Memory {
            changed.write_file(&self.dir.join(PARAMETER_FILE))?;
        }
        if scope != parameters::AlterSystemScope::Spfile && name == names::SHARED_POOL_SIZE {
            self.library_cache
                .resize(changed.get_bytes(names::SHARED_POOL_SIZE));
        }
        if scope != parameters::AlterSystemScope::Spfile
            && name.eq_ignore_ascii_case(names::DB_FILE_MULTIBLOCK_READ_COUNT)
        {
            self.cache.set_multiblock_read_count(
                changed.get_integer(names::DB_FILE_MULTIBLOCK_READ_COUNT) as usize,
            );
        }
        if scope != parameters::AlterSystemScope::Spfile
            && name.eq_ignore_ascii_case(names::USE_ADAPTIVE_LOG_FILE_SYNC)
        {
            self.log
                .adaptive()
                .set_enabled(changed.get_bool(names::USE_ADAPTIVE_LOG_FILE_SYNC));
        }
        if scope != parameters::AlterSystemScope::Spfile && name == names::DB_CACHE_ADVICE {
            self.cache.set_advice(advice_mode(&changed));
        }
        if scope != parameters::AlterSystemScope::Spfile
            && name.eq_ignore_ascii_case(names::LOG_ARCHIVE_DEST)
        {
            self.archiver
                .set_destination(&changed.get_string(names::LOG_ARCHIVE_DEST));
            if self.archiver.claim_thread() {
                self.threads
                    .lock()
                    .push(spawn_arc0(&self.archiver, &self.log));
            }
        }
        *parameters = changed;
        if scope != parameters::AlterSystemScope::Spfile {
            self.parameters_generation.fetch_add(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Changes with every ALTER SYSTEM that changed a value in memory.
    pub fn parameters_generation(&self) -> u64 {
        self.parameters_generation.load(Ordering::Acquire)
    }

    pub fn catalog(&self) -> &crate::catalog::Catalog {
        &self.catalog
    }

    /// The shared pool's library cache.
    pub fn library_cache(&self) -> &Arc<crate::library_cache::LibraryCache> {
        &self.library_cache
    }

    pub fn open_report(&self) -> &OpenReport {
        &self.report
    }

    /// ALTER SYSTEM CHECKPOINT: every change so far is written to the datafiles.
    pub fn checkpoint(&self) -> Result<()> {
        let lsn = self.log.current_lsn();
        self.log.flush_to(lsn)?;
        self.dbwr.checkpoint(lsn)
    }

    /// ALTER SYSTEM SWITCH LOGFILE.
    pub fn switch_logfile(&self) -> Result<()> {
        self.log.switch_logfile()
    }

    /// Appends an entry to the alert log (best effort: the alert log is diagnostics).
    pub fn alert(&self, message: &str) {
        write_alert(&self.dir, message);
    }

    /// Open until `shutdown` or `abandon` (what `oracledb_up` of the metrics endpoint shows).
    pub fn is_open(&self) -> bool {
        !self.closed.load(Ordering::Acquire)
    }

    /// Clean shutdown: checkpoint, mark the control file clean, stop the background threads.
    pub fn shutdown(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let result = self.checkpoint().and_then(|()| {
            let mut guard = self.control.lock();
            let (file, data) = &mut *guard;
            data.clean_shutdown = true;
            file.write(data)
        });
        self.stop_threads();
        if result.is_ok() {
            self.alert("Shutting down instance (normal): database closed cleanly");
        }
        result
    }

    /// Stops the background threads without writing anything (after a simulated crash).
    pub fn abandon(&self) {
        self.closed.store(true, Ordering::Release);
        self.stop_threads();
    }

    fn stop_threads(&self) {
        stop_background(
            &self.log,
            Some(&self.dbwr),
            Some(&self.archiver),
            self.threads.lock().drain(..),
        );
    }
}

/// The background threads of an open in progress. If the open fails, dropping this stops
/// them before the error returns: no LGWR or DBWR of a failed open goes on writing to files
/// the next open will use.
struct Startup {
    log: Arc<RedoLog>,
    dbwr: Option<Arc<Dbwr>>,
    archiver: Option<Arc<Archiver>>,
    threads: Vec<JoinHandle<()>>,
}

impl Startup {
    /// The open succeeded: the instance owns the threads now.
    fn finish(mut self) -> Vec<JoinHandle<()>> {
        self.dbwr = None;
        self.archiver = None;
        std::mem::take(&mut self.threads)
    }
}

impl Drop for Startup {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            stop_background(
                &self.log,
                self.dbwr.as_ref(),
                self.archiver.as_ref(),
                self.threads.drain(..),
            );
        }
    }
}

/// Stops ARC0 and DBWR (if started) and LGWR and joins their threads.
fn stop_background(
    log: &RedoLog,
    dbwr: Option<&Arc<Dbwr>>,
    archiver: Option<&Arc<Archiver>>,
    threads: impl Iterator<Item = JoinHandle<()>>,
) {
    if let Some(archiver) = archiver {
        archiver.shutdown();
    }
    if let Some(dbwr) = dbwr {
        dbwr.shutdown();
    }
    log.shutdown();
    for thread in threads {
        let _ = thread.join();
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Removes the datafiles, the double-write file and the online logs of an unfinished
/// creation (the control file stays: the new creation's first write supersedes it).
fn remove_database_files(vfs: &dyn Vfs, dir: &Path, log_groups: u32) -> Result<()> {
    let names = crate::io::datafile::DATAFILES
        .iter()
        .map(|(_, name)| name.to_string())
        .chain([crate::io::datafile::DOUBLE_WRITE_FILE.to_string()])
        .chain(RedoLog::file_names(log_groups));
    for path in names.map(|name| dir.join(name)) {
        if vfs.exists(&path) {
            vfs.remove(&path).map_err(|error| Error::io(&path, error))?;
        }
    }
    Ok(())
}

/// Takes the directory lock (`Vfs::lock_directory`): ORA-01102 when another instance, or
/// DBVERIFY, holds it.
pub(crate) fn lock_directory(
    vfs: &dyn Vfs,
    dir: &Path,
) -> Result<Box<dyn std::any::Any + Send + Sync>> {
    vfs.lock_directory(dir).map_err(|error| {
        if error.kind() == std::io::ErrorKind::WouldBlock {
            Error::database_locked(&dir.display().to_string())
        } else {
            Error::io(dir, error)
        }
    })
}

fn record_checkpoint(
    control: &Enqueue<(ControlFile, ControlData)>,
    log: &Weak<RedoLog>,
    transactions: &Weak<TransactionManager>,
    lsn: u64,
) -> Result<()> {
    let Some(log) = log.upgrade() else {
        return Ok(());
    };
    let Some((sequence, sequence_start)) = log.sequence_of(lsn) else {
        return Ok(());
    };
    let mut guard = control.lock();
    let (file, data) = &mut *guard;
    if lsn <= data.checkpoint_lsn {
        return Ok(());
    }
    data.checkpoint_lsn = lsn;
    data.checkpoint_sequence = sequence;
    data.checkpoint_sequence_start = sequence_start;
    if let Some(transactions) = transactions.upgrade() {
        data.checkpoint_scn = data.checkpoint_scn.max(transactions.current_scn());
    }
    file.write(data)?;
    drop(guard);
    log.checkpoint_completed(lsn);
    Ok(())
}

/// Records in the control file that every log sequence up to `sequence` is archived.
fn record_archived(control: &Enqueue<(ControlFile, ControlData)>, sequence: u64) -> Result<()> {
    let mut guard = control.lock();
    let (file, data) = &mut *guard;
    if sequence <= data.archived_sequence {
        return Ok(());
    }
    data.archived_sequence = sequence;
    file.write(data)
}

/// The alert log's file in the database directory.
pub const ALERT_FILE: &str = "alert.log";

/// Appends an entry (a time line, then `message`) to `dir`'s alert log, best effort.
fn write_alert(dir: &Path, message: &str) {
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(ALERT_FILE))
    {
        let _ = writeln!(
            file,
            "{}\n{}",
            chrono::Local::now().format("%a %b %d %H:%M:%S %Y"),
            message
        );
    }
}

/// The alert log as the redo log and ARC0 write it.
fn alert_writer(dir: &Path) -> AlertLog {
    let dir = dir.to_path_buf();
    Arc::new(move |message| write_alert(&dir, message))
}

/// Starts a background thread named `name` (Oracle's process name) that runs `work` in its
/// own background session (v$session PROGRAM `name`).
fn spawn_background(name: String, work: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    let session_name = name.clone();
    std::thread::Builder::new()
        .name(name.clone())
        .spawn(move || {
            let session = instrumentation::background_session(&session_name);
            let _entered = instrumentation::enter(&session);
            work()
        })
        .unwrap_or_else(|error| panic!("spawn {name}: {error}"))
}

/// ARC0; one that panics ends the redo log with ORA-00473, as a writer's panic does (a log
/// switch would otherwise wait for an archive that never comes).
fn spawn_arc0(archiver: &Arc<Archiver>, log: &Arc<RedoLog>) -> JoinHandle<()> {
    let (archiver, log) = (archiver.clone(), log.clone());
    spawn_background("ARC0".into(), move || {
        let archiving = std::panic::catch_unwind(AssertUnwindSafe(|| archiver.run()));
        if let Err(panic) = archiving {
            log.terminate(Error::background_terminated(473, "ARC0", panic.as_ref()));
        }
    })
}

fn spawn_lgwr(log: &Arc<RedoLog>) -> JoinHandle<()> {
    let log = log.clone();
    spawn_background("LGWR".into(), move || log.run_lgwr())
}

/// Starts writer `writer` (DBW0, DBW1, ...: Oracle names them 0-9 then a-z; Pythia counts
/// on in decimal past 9).
///
/// A writer that panics (ORA-00471, `Dbwr::run`) ends the redo log too: no change may be
/// made that a checkpoint could no longer make reusable.
fn spawn_dbwr(dbwr: &Arc<Dbwr>, log: &Arc<RedoLog>, writer: usize) -> JoinHandle<()> {
    let (dbwr, log) = (dbwr.clone(), log.clone());
    spawn_background(format!("DBW{writer}"), move || {
        if let Err(error) = dbwr.run(writer) {
            log.terminate(error);
        }
    })
}

fn database_id() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    (nanos as u64 ^ (std::process::id() as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

//! The statistics of v$statname, v$sysstat, v$sesstat and v$mystat.
//!
//! Every statistic keeps Oracle's exact name, its class bitmask and its `STAT_ID`, so that a
//! DBA's scripts (`where name = 'parse count (hard)'`) work unchanged. `statistic#` follows
//! Oracle 12.1's numbering, which is sparse here because Pythia implements a subset:
//! `Statistic::ALL` is sorted by it, and a statistic's position in `ALL` (its `index()`) is the
//! slot of its counter in every accumulator.
//!
//! Statistics Oracle does not have (LGWR's switches of the log file sync method) are numbered
//! from 2000, with the CRC-32 of their name as `STAT_ID`.
//!
//! Classes are additive bits, as in Oracle:
//!
//! ```text
//!   1 User    2 Redo    4 Enqueue    8 Cache    16 OS    32 RAC    64 SQL    128 Debug
//!   "buffer is pinned count" is 72 = 64 (SQL) + 8 (Cache).
//! ```
//!
//! Most statistics are cumulative: they only grow, and when a session ends its values are
//! folded into the departed-sessions accumulator so that v$sysstat never goes backwards. A few
//! are current values (`logons current`, `opened cursors current`, `session cursor cache
//! count`): they go up and down, and leave the system total when their session ends.
//!
//! Time statistics in this table are in centiseconds, as Oracle reports them (`CPU used by this
//! session`, `DB time`, `parse time cpu`, `redo synch time`); the time model keeps the
//! microseconds. The engine maintains the centisecond statistics from cumulative microsecond
//! totals (the difference of the rounded-down totals), so that many short calls add up to the
//! right number of centiseconds instead of rounding each call down to zero.

/// One bit of a statistic's class bitmask (v$statname.class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatisticClass {
    User = 1,
    Redo = 2,
    Enqueue = 4,
    Cache = 8,
    OperatingSystem = 16,
    RealApplicationClusters = 32,
    Sql = 64,
    Debug = 128,
}

impl StatisticClass {
    pub const ALL: [StatisticClass; 8] = [
        StatisticClass::User,
        StatisticClass::Redo,
        StatisticClass::Enqueue,
        StatisticClass::Cache,
        StatisticClass::OperatingSystem,
        StatisticClass::RealApplicationClusters,
        StatisticClass::Sql,
        StatisticClass::Debug,
    ];

    /// The bit this class sets in v$statname.class.
    pub const fn bit(self) -> u32 {
        self as u32
    }

    /// The name Oracle's documentation gives the class.
    pub const fn name(self) -> &'static str {
        match self {
            StatisticClass::User => "User",
            StatisticClass::Redo => "Redo",
            StatisticClass::Enqueue => "Enqueue",
            StatisticClass::Cache => "Cache",
            StatisticClass::OperatingSystem => "OS",
            StatisticClass::RealApplicationClusters => "Real Application Clusters",
            StatisticClass::Sql => "SQL",
            StatisticClass::Debug => "Debug",
        }
    }
}

/// Declares `Statistic` from rows of (variant, statistic#, name, class bitmask, STAT_ID).
macro_rules! statistics {
    ($($variant:ident = ($number:literal, $name:literal, $class:literal, $stat_id:literal),)*) => {
        /// A statistic of v$statname. See the module documentation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Statistic {
            $(
                #[doc = $name]
                $variant,
            )*
        }

        impl Statistic {
            /// Every statistic, in `statistic#` order; `ALL[s.index()] == s`.
            pub const ALL: [Statistic; Statistic::COUNT] = [$(Statistic::$variant,)*];

            /// How many statistics Pythia keeps.
            pub const COUNT: usize = [$($number,)*].len();

            /// Oracle's `statistic#` (12.1 numbering).
            pub const fn number(self) -> u32 {
                match self {
                    $(Statistic::$variant => $number,)*
                }
            }

            /// Oracle's exact name, as in v$statname.name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Statistic::$variant => $name,)*
                }
            }

            /// The class bitmask (see `StatisticClass`).
            pub const fn class(self) -> u32 {
                match self {
                    $(Statistic::$variant => $class,)*
                }
            }

            /// Oracle's `STAT_ID`, a hash of the name that is stable across releases.
            pub const fn stat_id(self) -> u32 {
                match self {
                    $(Statistic::$variant => $stat_id,)*
                }
            }
        }
    };
}

statistics! {
    LogonsCumulative = (1, "logons cumulative", 1, 2666645286),
    LogonsCurrent = (2, "logons current", 1, 3080465522),
    OpenedCursorsCumulative = (3, "opened cursors cumulative", 1, 85052502),
    OpenedCursorsCurrent = (4, "opened cursors current", 1, 2301954928),
    UserCommits = (5, "user commits", 1, 582481098),
    UserRollbacks = (6, "user rollbacks", 1, 3671147913),
    UserCalls = (7, "user calls", 1, 2882015696),
    RecursiveCalls = (8, "recursive calls", 1, 2656001462),
    RecursiveCpuUsage = (9, "recursive cpu usage", 1, 4009879262),
    SessionLogicalReads = (11, "session logical reads", 1, 3143187968),
    CpuUsedByThisSession = (16, "CPU used by this session", 1, 24469293),
    DbTime = (17, "DB time", 1, 3649082374),
    ConcurrencyWaitTime = (19, "concurrency wait time", 1, 3868577743),
    ApplicationWaitTime = (20, "application wait time", 1, 1099569955),
    UserIoWaitTime = (21, "user I/O wait time", 1, 3332107451),
    NonIdleWaitTime = (23, "non-idle wait time", 1, 2498191658),
    NonIdleWaitCount = (24, "non-idle wait count", 1, 45066233),
    MessagesSent = (29, "messages sent", 128, 2486045308),
    MessagesReceived = (30, "messages received", 128, 1396153242),
    BackgroundTimeouts = (31, "background timeouts", 128, 961017212),
    EnqueueTimeouts = (36, "enqueue timeouts", 4, 2425496215),
    EnqueueWaits = (37, "enqueue waits", 4, 2307006529),
    EnqueueDeadlocks = (38, "enqueue deadlocks", 4, 472183780),
    EnqueueRequests = (39, "enqueue requests", 4, 2440542518),
    EnqueueConversions = (40, "enqueue conversions", 4, 57745673),
    EnqueueReleases = (41, "enqueue releases", 4, 2553146675),
    PhysicalReadTotalIoRequests = (46, "physical read total IO requests", 8, 3343375620),
    PhysicalReadTotalMultiBlockRequests = (47, "physical read total multi block requests", 8, 2007302071),
    PhysicalReadTotalBytes = (50, "physical read total bytes", 8, 2572010804),
    PhysicalWriteTotalIoRequests = (51, "physical write total IO requests", 8, 1315894329),
    PhysicalWriteTotalBytes = (53, "physical write total bytes", 8, 2495644835),
    DbBlockGets = (66, "db block gets", 8, 1480709069),
    DbBlockGetsFromCache = (67, "db block gets from cache", 8, 4017839461),
    ConsistentGets = (70, "consistent gets", 8, 4162191256),
    ConsistentGetsFromCache = (71, "consistent gets from cache", 8, 2839918855),
    ConsistentGetsExamination = (73, "consistent gets - examination", 8, 1701530557),
    PhysicalReads = (75, "physical reads", 8, 2263124246),
    PhysicalReadsCache = (76, "physical reads cache", 8, 4171507801),
    PhysicalReadsDirect = (78, "physical reads direct", 8, 2589616721),
    PhysicalReadIoRequests = (79, "physical read IO requests", 8, 789768877),
    PhysicalReadBytes = (80, "physical read bytes", 8, 523531786),
    DbBlockChanges = (81, "db block changes", 8, 916801489),
    ConsistentChanges = (82, "consistent changes", 8, 3876379665),
    PhysicalWrites = (86, "physical writes", 8, 1190468109),
    PhysicalWritesDirect = (87, "physical writes direct", 8, 2699895516),
    PhysicalWritesFromCache = (88, "physical writes from cache", 8, 163083034),
    PhysicalWriteIoRequests = (89, "physical write IO requests", 8, 2904164198),
    PhysicalWriteBytes = (93, "physical write bytes", 8, 3131337131),
    DbwrCheckpointBuffersWritten = (107, "DBWR checkpoint buffers written", 8, 1208600358),
    DbwrLruScans = (115, "DBWR lru scans", 8, 2139101792),
    DbwrCheckpoints = (116, "DBWR checkpoints", 8, 1732023165),
    FreeBufferRequested = (128, "free buffer requested", 8, 3411924934),
    DirtyBuffersInspected = (129, "dirty buffers inspected", 8, 1344569897),
    PinnedBuffersInspected = (130, "pinned buffers inspected", 8, 833456521),
    HotBuffersMovedToHeadOfLru = (131, "hot buffers moved to head of LRU", 8, 2030212224),
    FreeBufferInspected = (132, "free buffer inspected", 8, 941676439),
    CommitCleanouts = (139, "commit cleanouts", 8, 2934869719),
    CrBlocksCreated = (143, "CR blocks created", 8, 516801181),
    PhysicalReadsCachePrefetch = (151, "physical reads cache prefetch", 8, 297908839),
    RedoEntries = (174, "redo entries", 2, 3488821837),
    RedoSize = (175, "redo size", 2, 1236385760),
    RedoBufferAllocationRetries = (179, "redo buffer allocation retries", 2, 1446958922),
    RedoWastage = (180, "redo wastage", 2, 3462806146),
    RedoWrites = (181, "redo writes", 2, 1948353376),
    RedoBlocksWritten = (182, "redo blocks written", 2, 2391431605),
    RedoWriteTime = (183, "redo write time", 2, 3094453259),
    RedoLogSpaceRequests = (186, "redo log space requests", 2, 1985754937),
    RedoLogSpaceWaitTime = (187, "redo log space wait time", 2, 252430928),
    RedoSynchTime = (193, "redo synch time", 2, 4215815172),
    RedoSynchTimeUsec = (194, "redo synch time (usec)", 128, 957243500),
    RedoSynchWrites = (195, "redo synch writes", 2, 1439995281),
    RedoSynchLongWaits = (196, "redo synch long waits", 128, 2758571193),
    RedoSynchPollWrites = (197, "redo synch poll writes", 2, 3841621897),
    RedoSynchPolls = (198, "redo synch polls", 2, 3455043432),
    BackgroundCheckpointsStarted = (234, "background checkpoints started", 8, 3048007007),
    BackgroundCheckpointsCompleted = (235, "background checkpoints completed", 8, 2450922463),
    UndoChangeVectorSize = (284, "undo change vector size", 128, 1465971540),
    DataBlocksConsistentReadsUndoRecordsApplied = (287, "data blocks consistent reads - undo records applied", 128, 2915445793),
    RollbackChangesUndoRecordsApplied = (296, "rollback changes - undo records applied", 128, 3616249137),
    TransactionRollbacks = (297, "transaction rollbacks", 128, 3988650402),
    CommitBatchImmediateRequested = (318, "commit batch/immediate requested", 1, 640321576),
    CommitBatchRequested = (319, "commit batch requested", 1, 2338940602),
    CommitImmediateRequested = (320, "commit immediate requested", 1, 796663742),
    CommitBatchImmediatePerformed = (321, "commit batch/immediate performed", 1, 3711642721),
    CommitBatchPerformed = (322, "commit batch performed", 1, 1391516579),
    CommitImmediatePerformed = (323, "commit immediate performed", 1, 3494177237),
    CommitWaitNowaitRequested = (324, "commit wait/nowait requested", 1, 3800399491),
    CommitNowaitRequested = (325, "commit nowait requested", 1, 3697788123),
    CommitWaitRequested = (326, "commit wait requested", 1, 2843300285),
    CommitWaitNowaitPerformed = (327, "commit wait/nowait performed", 1, 1541239326),
    CommitNowaitPerformed = (328, "commit nowait performed", 1, 485928497),
    CommitWaitPerformed = (329, "commit wait performed", 1, 8047752),
    TableScansShortTables = (370, "table scans (short tables)", 64, 345141973),
    TableScansLongTables = (371, "table scans (long tables)", 64, 1042655239),
    TableScansDirectRead = (374, "table scans (direct read)", 64, 3355423586),
    TableScanRowsGotten = (375, "table scan rows gotten", 64, 1400824662),
    TableScanBlocksGotten = (376, "table scan blocks gotten", 64, 3741388076),
    TableFetchByRowid = (377, "table fetch by rowid", 64, 681815839),
    TableFetchContinuedRow = (378, "table fetch continued row", 64, 1413702393),
    RowsFetchedViaCallback = (381, "rows fetched via callback", 64, 3299365556),
    LeafNodeSplits = (406, "leaf node splits", 128, 1417124053),
    LeafNode9010Splits = (407, "leaf node 90-10 splits", 128, 1285138251),
    BranchNodeSplits = (408, "branch node splits", 128, 399027615),
    RootNodeSplits = (409, "root node splits", 128, 708722985),
    IndexFastFullScansFull = (419, "index fast full scans (full)", 64, 12081473),
    IndexFetchByKey = (422, "index fetch by key", 128, 2808364230),
    IndexScansKdiixs1 = (423, "index scans kdiixs1", 128, 3589793292),
    SqlAreaPurged = (501, "sql area purged", 64, 2763387941),
    SqlAreaEvicted = (502, "sql area evicted", 64, 3224599022),
    CcursorSqlAreaEvicted = (503, "CCursor + sql area evicted", 64, 938276153),
    SessionCursorCacheHits = (522, "session cursor cache hits", 64, 3678609077),
    SessionCursorCacheCount = (523, "session cursor cache count", 64, 568260813),
    CursorAuthentications = (548, "cursor authentications", 128, 4069981174),
    BufferIsPinnedCount = (563, "buffer is pinned count", 72, 1300470380),
    BufferIsNotPinnedCount = (564, "buffer is not pinned count", 72, 2670431739),
    WorkareaExecutionsOptimal = (567, "workarea executions - optimal", 64, 3211650785),
    WorkareaExecutionsOnepass = (568, "workarea executions - onepass", 64, 798730793),
    WorkareaExecutionsMultipass = (569, "workarea executions - multipass", 64, 3804491469),
    ParseTimeCpu = (571, "parse time cpu", 64, 206905303),
    ParseTimeElapsed = (572, "parse time elapsed", 64, 1431595225),
    ParseCountTotal = (573, "parse count (total)", 64, 63887964),
    ParseCountHard = (574, "parse count (hard)", 64, 143509059),
    ParseCountFailures = (575, "parse count (failures)", 64, 1118776443),
    ParseCountDescribe = (576, "parse count (describe)", 64, 469016317),
    ExecuteCount = (578, "execute count", 64, 2453370665),
    BytesSentViaSqlNetToClient = (579, "bytes sent via SQL*Net to client", 1, 2967415760),
    BytesReceivedViaSqlNetFromClient = (580, "bytes received via SQL*Net from client", 1, 161936656),
    SqlNetRoundtripsToFromClient = (581, "SQL*Net roundtrips to/from client", 1, 159846526),
    SortsMemory = (589, "sorts (memory)", 64, 2091983730),
    SortsDisk = (590, "sorts (disk)", 64, 2533123502),
    SortsRows = (591, "sorts (rows)", 64, 3757672740),
    // Pythia's own, numbered from 2000 (past Oracle's), STAT_ID the CRC-32 of the name.
    RedoSynchSwitchesToPolling = (2000, "redo synch switches to polling", 2, 4100201352),
    RedoSynchSwitchesToPostWait = (2001, "redo synch switches to post/wait", 2, 1536032096),
}

impl Statistic {
    /// The slot of this statistic's counter in every accumulator.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The statistic with Oracle's exact name, if Pythia keeps it.
    pub fn from_name(name: &str) -> Option<Statistic> {
        Statistic::ALL
            .iter()
            .copied()
            .find(|statistic| statistic.name() == name)
    }

    /// The statistic with this `statistic#`, if Pythia keeps it.
    pub fn from_number(number: u32) -> Option<Statistic> {
        Statistic::ALL
            .binary_search_by_key(&number, |statistic| statistic.number())
            .ok()
            .map(|position| Statistic::ALL[position])
    }

    /// Whether the statistic's class bitmask includes `class`.
    pub const fn has_class(self, class: StatisticClass) -> bool {
        self.class() & class.bit() != 0
    }

    /// A current value rather than a cumulative count: it goes down as well as up (use
    /// `instrumentation::subtract`), and it leaves the system total when its session ends
    /// instead of being folded into the departed-sessions accumulator.
    pub const fn is_current_value(self) -> bool {
        matches!(
            self,
            Statistic::LogonsCurrent
                | Statistic::OpenedCursorsCurrent
                | Statistic::SessionCursorCacheCount
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn from_name_round_trips_every_statistic() {
        for statistic in Statistic::ALL {
            assert_eq!(Statistic::from_name(statistic.name()), Some(statistic));
            assert_eq!(Statistic::from_number(statistic.number()), Some(statistic));
        }
        assert_eq!(Statistic::from_name("no such statistic"), None);
        assert_eq!(
            Statistic::from_name("Consistent Gets"),
            None,
            "names are exact"
        );
    }

    #[test]
    fn names_numbers_and_ids_are_unique() {
        let names: HashSet<_> = Statistic::ALL.iter().map(|s| s.name()).collect();
        let numbers: HashSet<_> = Statistic::ALL.iter().map(|s| s.number()).collect();
        let ids: HashSet<_> = Statistic::ALL.iter().map(|s| s.stat_id()).collect();
        assert_eq!(names.len(), Statistic::COUNT);
        assert_eq!(numbers.len(), Statistic::COUNT);
        assert_eq!(ids.len(), Statistic::COUNT);
    }

    #[test]
    fn all_is_in_number_order_and_indexes_match() {
        for (position, statistic) in Statistic::ALL.iter().enumerate() {
            assert_eq!(statistic.index(), position);
        }
        assert!(Statistic::ALL
            .windows(2)
            .all(|pair| pair[0].number() < pair[1].number()));
    }

    #[test]
    fn classes_are_made_of_known_bits() {
        let known: u32 = StatisticClass::ALL.iter().map(|class| class.bit()).sum();
        for statistic in Statistic::ALL {
            assert_ne!(statistic.class(), 0, "{}", statistic.name());
            assert_eq!(statistic.class() & !known, 0, "{}", statistic.name());
        }
        assert!(Statistic::BufferIsPinnedCount.has_class(StatisticClass::Sql));
        assert!(Statistic::BufferIsPinnedCount.has_class(StatisticClass::Cache));
        assert!(Statistic::RedoSize.has_class(StatisticClass::Redo));
    }
}

//! Users and their privileges, kept in DICT$ with the other objects, and the views that show
//! them (`dba_users`, `all_users`, `dba_sys_privs`, `dba_tab_privs`).
//!
//! ```text
//!   DICT$ rows, through the DDL's transaction like every dictionary change:
//!      ['USER',    user#, name, verifier or NULL, created, locked since or NULL]
//!      ['SYSPRIV', grantee user#, privilege]                      'CREATE SESSION'
//!      ['TABPRIV', grantee user#, table obj#, privilege, grantor user#]
//!
//!   Dictionary::users ── name ──> Arc<UserDef>   its grants, with the DICT$ rows that keep them
//! ```
//!
//! Column by column, with the row codec's type of each (column 0 is the kind, as in every
//! DICT$ row):
//!
//! | kind | 1 | 2 | 3 | 4 | 5 |
//! |---|---|---|---|---|---|
//! | `USER` | user# NUMBER | name TEXT | verifier TEXT, or NULL for a user without a password | created NUMBER (seconds since the epoch) | locked since NUMBER (seconds since the epoch), or NULL when the account is open |
//! | `SYSPRIV` | grantee user# NUMBER | privilege TEXT (`CREATE SESSION`) | | | |
//! | `TABPRIV` | grantee user# NUMBER | table obj# NUMBER | privilege TEXT (`SELECT`, `INSERT`, `UPDATE` or `DELETE`) | grantor user# NUMBER | |
//!
//! The verifier is PostgreSQL's SCRAM-SHA-256 text, `SCRAM-SHA-256$<iterations>:<salt>$
//! <StoredKey>:<ServerKey>` in base64 (`crate::scram`): never the password, which no row,
//! redo record or cursor keeps (the session hides it from the library cache:
//! `session::users`' password statements). A verifier that does not read back is kept as
//! written and refuses every logon of its user. User numbers come from the object number
//! counter (one past the highest number in column 1 of DICT$ at open), except SYSTEM's, 5
//! as in Oracle 11g. A table's privileges name it by object number, so a RENAME keeps them;
//! DROP TABLE deletes them in its transaction; DROP USER deletes its user's grants.
//!
//! SYSTEM is made with the database (`Catalog::create`), with the verifier of the password
//! the instance was created with (`PYTHIA_PASSWORD` or `pythia serve --password`), or
//! without one: then only a trust-mode server or the embedded API logs on as SYSTEM. A
//! database made before users has no USER row: its first open adds SYSTEM without a
//! password. A build from before users cannot open a database that has USER rows (it
//! refuses kinds it does not know, with ORA-00600).
//!
//! SYSTEM holds every privilege (Oracle's DBA role), which no row lists. Privileges that
//! are enforced: CREATE SESSION at logon (ORA-01045); user administration (CREATE, ALTER
//! and DROP USER, GRANT, REVOKE), which only SYSTEM may do, save a user changing their own
//! password (ORA-01031); and the table privileges, on tables and views, at every execution
//! of a statement (`session::users`, `Session::check_privileges`). Every object is in
//! SYSTEM's one schema; DDL is SYSTEM's alone (`docs/sql.md`, Users).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::access::heap::RowId;
use crate::error::{Error, Result};
use crate::syntax::ast;
use crate::types::Value;

use super::ddl::{check_name, DdlContext};
use super::dict_rows::{integer, optional_integer, text};
use super::{now_seconds, Catalog, Dictionary, OBJECT_NAME_BYTES_MAX};

/// The administrative user every database has.
pub const SYSTEM_USER: &str = "SYSTEM";
/// SYSTEM's user number (Oracle 11g's).
pub const SYSTEM_USER_ID: u32 = 5;
/// The one system privilege there is so far.
pub const CREATE_SESSION: &str = "CREATE SESSION";
/// The longest password (Oracle 12.2 and later: 1024 bytes).
pub const PASSWORD_BYTES_MAX: usize = 1024;

/// A user: its verifier, its account status and the privileges granted to it.
#[derive(Clone, Debug)]
pub struct UserDef {
    pub user_id: u32,
    pub name: String,
    /// The SCRAM-SHA-256 verifier's text; None: no password (NO AUTHENTICATION).
    pub verifier: Option<String>,
    pub created: i64,
    /// When ACCOUNT LOCK locked it; None: open.
    pub locked_since: Option<i64>,
    /// System privileges granted, each with its SYSPRIV row.
    pub(crate) system_privileges: BTreeMap<String, RowId>,
    /// Table privileges granted: (table obj#, privilege) to (grantor user#, TABPRIV row).
    pub(crate) table_privileges: BTreeMap<(u32, String), (u32, RowId)>,
    dictionary_row: RowId,
}

impl UserDef {
    /// Whether the user holds system privilege `privilege` (SYSTEM holds them all).
    pub fn has_system_privilege(&self, privilege: &str) -> bool {
        self.name == SYSTEM_USER || self.system_privileges.contains_key(privilege)
    }

    /// The verifier, when there is one that reads back (`crate::scram::Verifier::parse`).
    pub fn scram_verifier(&self) -> Option<crate::scram::Verifier> {
        self.verifier
            .as_deref()
            .and_then(crate::scram::Verifier::parse)
    }

    /// Whether the user holds `privilege` (`SELECT`, `INSERT`, `UPDATE`, `DELETE`; None:
    /// any of them) on the table or view `object_id`: granted to it, or it is SYSTEM, who
    /// holds every privilege.
    pub fn holds(&self, object_id: u32, privilege: Option<&str>) -> bool {
        self.name == SYSTEM_USER
            || self.table_privileges.keys().any(|(id, held)| {
                *id == object_id && privilege.is_none_or(|privilege| held == privilege)
            })
    }

    /// The USER row of DICT$.
    fn dictionary_values(&self) -> Vec<Value> {
        vec![
            Value::text("USER"),
            Value::integer(self.user_id as i64),
            Value::text(&self.name),
            self.verifier.as_deref().map_or(Value::Null, Value::text),
            Value::integer(self.created),
            self.locked_since.map_or(Value::Null, Value::integer),
        ]
    }
}

impl Dictionary {
    /// The user `name` (its exact name), or ORA-01918.
    pub fn user(&self, name: &str) -> Result<&Arc<UserDef>> {
        self.users
            .get(name)
            .ok_or_else(|| Error::user_not_found(name))
    }

    /// The user a client names at logon: the name as sent, else in upper case (Oracle folds
    /// an unquoted name, and PostgreSQL's clients send `system` as typed).
    pub fn user_for_logon(&self, sent: &str) -> Option<&Arc<UserDef>> {
        if sent.len() > OBJECT_NAME_BYTES_MAX {
            return None;
        }
        self.users
            .get(sent)
            .or_else(|| self.users.get(&sent.to_uppercase()))
    }

    pub(crate) fn user_by_id(&self, user_id: u32) -> Option<&Arc<UserDef>> {
        self.users.values().find(|user| user.user_id == user_id)
    }

    /// The object a table privilege is granted on: a table or a view, by name, with its
    /// object number and its kind as `dba_tab_privs.type` shows it; ORA-00942 for anything
    /// else.
    pub fn privilege_object(&self, name: &str) -> Result<(u32, &'static str)> {
        if let Some(table) = self.tables.get(name) {
            return Ok((table.object_id, "TABLE"));
        }
        match self.views.get(name) {
            Some(view) => Ok((view.object_id, "VIEW")),
            None => Err(Error::table_not_found()),
        }
    }

    /// The name and kind of the table or view `object_id`.
    pub(crate) fn privilege_object_by_id(&self, object_id: u32) -> Option<(String, &'static str)> {
        if let Some(table) = self.table_by_id(object_id) {
            return Some((table.name.clone(), "TABLE"));
        }
        self.views
            .values()
            .find(|view| view.object_id == object_id)
            .map(|view| (view.name.clone(), "VIEW"))
    }
}

/// USER, SYSPRIV and TABPRIV rows read at open, applied once every row is read.
#[derive(Default)]
pub(super) struct UserRows {
    users: Vec<(RowId, Vec<Value>)>,
    privileges: Vec<(RowId, Vec<Value>)>,
}

impl UserRows {
    /// Takes the row if it is one of this module's kinds; gives it back otherwise.
    pub(super) fn take(
        &mut self,
        kind: &str,
        rowid: RowId,
        values: Vec<Value>,
    ) -> Option<Vec<Value>> {
        match kind {
            "USER" => self.users.push((rowid, values)),
            "SYSPRIV" | "TABPRIV" => self.privileges.push((rowid, values)),
            _ => return Some(values),
        }
        None
    }

    /// Puts the users and their privileges into `dictionary`. A privilege of a user or a
    /// table no longer there is ignored.
    pub(super) fn apply(self, dictionary: &mut Dictionary) -> Result<()> {
        for (rowid, values) in self.users {
            let user = UserDef {
                user_id: integer(&values, 1)? as u32,
                name: text(&values, 2)?,
                verifier: values.get(3).and_then(Value::as_str).map(str::to_string),
                created: integer(&values, 4)? as i64,
                locked_since: optional_integer(&values, 5)?.map(|seconds| seconds as i64),
                system_privileges: BTreeMap::new(),
                table_privileges: BTreeMap::new(),
                dictionary_row: rowid,
            };
            dictionary.users.insert(user.name.clone(), Arc::new(user));
        }
        for (rowid, values) in self.privileges {
            let grantee = integer(&values, 1)? as u32;
            let Some(user) = dictionary.user_by_id(grantee) else {
                continue;
            };
            let mut user = (**user).clone();
            if text(&values, 0)? == "SYSPRIV" {
                user.system_privileges.insert(text(&values, 2)?, rowid);
            } else {
                let table_id = integer(&values, 2)? as u32;
                if dictionary.table_by_id(table_id).is_none() {
                    continue;
                }
                let grantor = integer(&values, 4)? as u32;
                user.table_privileges
                    .insert((table_id, text(&values, 3)?), (grantor, rowid));
            }
            dictionary.users.insert(user.name.clone(), Arc::new(user));
        }
        Ok(())
    }
}

impl Catalog {
    /// Makes SYSTEM (with the database, or at the first open of a database made before
    /// users), with the verifier of its password or without one.
    pub(super) fn create_system_user(&self, verifier: Option<String>) -> Result<()> {
        if self.current().users.contains_key(SYSTEM_USER) {
            return Ok(());
        }
        self.change(|dictionary, context| {
            if dictionary.users.contains_key(SYSTEM_USER) {
                return Ok(());
            }
            insert_user(
                dictionary,
                context,
                SYSTEM_USER_ID,
                SYSTEM_USER,
                verifier,
                None,
            )
        })
    }

    /// CREATE USER: ORA-01920 when the name is taken.
    pub fn create_user(&self, name: &str, verifier: Option<String>, locked: bool) -> Result<()> {
        check_name(name)?;
        self.change(|dictionary, context| {
            if dictionary.users.contains_key(name) {
                return Err(Error::new(
                    1920,
                    format!("user name '{name}' conflicts with another user or role name"),
                ));
            }
            let user_id = self.next_object_id();
            let locked = locked.then(now_seconds);
            insert_user(dictionary, context, user_id, name, verifier, locked)
        })
    }

    /// ALTER USER: a new verifier (`verifier` Some), ACCOUNT LOCK (`lock` Some(true)) or
    /// UNLOCK. Locking a locked account keeps the time it was locked.
    pub fn alter_user(
        &self,
        name: &str,
        verifier: Option<String>,
        lock: Option<bool>,
    ) -> Result<()> {
        self.change(|dictionary, context| {
            let mut user = (**dictionary.user(name)?).clone();
            if verifier.is_some() {
                user.verifier = verifier;
            }
            match lock {
                Some(true) if user.locked_since.is_none() => {
                    user.locked_since = Some(now_seconds())
                }
                Some(false) => user.locked_since = None,
                _ => {}
            }
            context.update(user.dictionary_row, &user.dictionary_values())?;
            dictionary.users.insert(user.name.clone(), Arc::new(user));
            Ok(())
        })
    }

    /// DROP USER, with the privileges granted to it. ORA-28014 for SYSTEM.
    pub fn drop_user(&self, name: &str) -> Result<()> {
        if name == SYSTEM_USER {
            return Err(Error::new(28014, "cannot drop administrative user or role"));
        }
        self.change(|dictionary, context| {
            let user = dictionary.user(name)?.clone();
            let rows = user
                .system_privileges
                .values()
                .chain(user.table_privileges.values().map(|(_, row)| row));
            for row in rows {
                context.delete(*row)?;
            }
            context.delete(user.dictionary_row)?;
            dictionary.users.remove(name);
            Ok(())
        })
    }

    /// GRANT (or, with `revoke`, REVOKE) `privileges` to (from) each of `users`, by
    /// `grantor`, in one transaction: one failure changes nothing. Granting what is granted
    /// already changes nothing; revoking what is not granted is ORA-01952 (a system
    /// privilege) or ORA-01927 (a table's).
    pub fn grant(
        &self,
        grantor: &str,
        privileges: &ast::Privileges,
        users: &[String],
        revoke: bool,
    ) -> Result<()> {
        self.change(|dictionary, context| {
            let grantor_id = dictionary.user(grantor)?.user_id;
            for name in users {
                if name == grantor {
                    return Err(Error::new(
                        1749,
                        "you may not GRANT/REVOKE privileges to/from yourself",
                    ));
                }
                let mut user = match dictionary.users.get(name) {
                    Some(user) => (**user).clone(),
                    None => {
                        return Err(Error::new(
                            1917,
                            format!("user or role '{name}' does not exist"),
                        ))
                    }
                };
                match privileges {
                    ast::Privileges::System(names) => {
                        for privilege in names {
                            grant_system(context, &mut user, privilege, revoke)?;
                        }
                    }
                    ast::Privileges::Table { privileges, table } => {
                        let (table_id, _) = dictionary.privilege_object(&table.name)?;
                        for privilege in privileges {
                            let key = (table_id, privilege.clone());
                            match (user.table_privileges.get(&key), revoke) {
                                (Some((_, row)), true) => {
                                    context.delete(*row)?;
                                    user.table_privileges.remove(&key);
                                }
                                (None, true) => {
                                    return Err(Error::new(
                                        1927,
                                        "cannot REVOKE privileges you did not grant",
                                    ))
                                }
                                (Some(_), false) => {}
                                (None, false) => {
                                    let row = context.insert(&[
                                        Value::text("TABPRIV"),
                                        Value::integer(user.user_id as i64),
                                        Value::integer(table_id as i64),
                                        Value::text(privilege),
                                        Value::integer(grantor_id as i64),
                                    ])?;
                                    user.table_privileges.insert(key, (grantor_id, row));
                                }
                            }
                        }
                    }
                }
                dictionary.users.insert(user.name.clone(), Arc::new(user));
            }
            Ok(())
        })
    }
}

/// Grants or revokes one system privilege of `user` (its row written or deleted).
fn grant_system(
    context: &mut DdlContext,
    user: &mut UserDef,
    privilege: &str,
    revoke: bool,
) -> Result<()> {
    match (user.system_privileges.get(privilege), revoke) {
        (Some(row), true) => {
            context.delete(*row)?;
            user.system_privileges.remove(privilege);
        }
        (None, true) => {
            return Err(Error::new(
                1952,
                format!("system privileges not granted to '{}'", user.name),
            ))
        }
        (Some(_), false) => {}
        (None, false) => {
            let row = context.insert(&[
                Value::text("SYSPRIV"),
                Value::integer(user.user_id as i64),
                Value::text(privilege),
            ])?;
            user.system_privileges.insert(privilege.to_string(), row);
        }
    }
    Ok(())
}

fn insert_user(
    dictionary: &mut Dictionary,
    context: &mut DdlContext,
    user_id: u32,
    name: &str,
    verifier: Option<String>,
    locked_since: Option<i64>,
) -> Result<()> {
    let mut user = UserDef {
        user_id,
        name: name.to_string(),
        verifier,
        created: now_seconds(),
        locked_since,
        system_privileges: BTreeMap::new(),
        table_privileges: BTreeMap::new(),
        dictionary_row: RowId { block: 0, slot: 0 },
    };
    user.dictionary_row = context.insert(&user.dictionary_values())?;
    dictionary.users.insert(name.to_string(), Arc::new(user));
    Ok(())
}

/// DROP TABLE's part: the privileges granted on table `table_id` go with it.
pub(super) fn drop_table_privileges(
    dictionary: &mut Dictionary,
    context: &mut DdlContext,
    table_id: u32,
) -> Result<()> {
    let holders: Vec<Arc<UserDef>> = dictionary
        .users
        .values()
        .filter(|user| user.table_privileges.keys().any(|(id, _)| *id == table_id))
        .cloned()
        .collect();
    for holder in holders {
        let mut user = (*holder).clone();
        let dropped: Vec<(u32, String)> = user
            .table_privileges
            .keys()
            .filter(|(id, _)| *id == table_id)
            .cloned()
            .collect();
        for key in dropped {
            if let Some((_, row)) = user.table_privileges.remove(&key) {
                context.delete(row)?;
            }
        }
        dictionary.users.insert(user.name.clone(), Arc::new(user));
    }
    Ok(())
}

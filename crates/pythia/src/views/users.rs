//! The views of users and privileges: dba_users, all_users, dba_sys_privs, dba_tab_privs,
//! from the dictionary's users (`catalog::users`).

use super::dictionary::rowset;
use super::registry::{Build, View, ViewKind};
use super::ViewContext;
use crate::catalog::OWNER;
use crate::error::Result;
use crate::types::{DataType, RowSet, Value};

/// The views of this file.
pub(super) const VIEWS: &[View] = &[
    View {
        name: "DBA_USERS",
        kind: ViewKind::Dictionary { twins: false },
        build: Build::Rows(dba_users),
    },
    View {
        name: "ALL_USERS",
        kind: ViewKind::Dictionary { twins: false },
        build: Build::Rows(all_users),
    },
    View {
        name: "DBA_SYS_PRIVS",
        kind: ViewKind::Dictionary { twins: false },
        build: Build::Rows(dba_sys_privs),
    },
    View {
        name: "DBA_TAB_PRIVS",
        kind: ViewKind::Dictionary { twins: false },
        build: Build::Rows(dba_tab_privs),
    },
];

fn text() -> Option<DataType> {
    Some(DataType::varchar2(128))
}

fn number() -> Option<DataType> {
    Some(DataType::number())
}

fn date() -> Option<DataType> {
    Some(DataType::Date)
}

/// A view's column: its name and type.
type ViewColumn = (&'static str, Option<DataType>);

/// DBA_USERS.
fn dba_users(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let users = dictionary.users.values();
    let (columns, rows): (Vec<ViewColumn>, Vec<Vec<Value>>) = (
        vec![
            ("USERNAME", text()),
            ("USER_ID", number()),
            ("ACCOUNT_STATUS", Some(DataType::varchar2(32))),
            ("LOCK_DATE", date()),
            ("CREATED", date()),
            ("AUTHENTICATION_TYPE", Some(DataType::varchar2(8))),
        ],
        users
            .map(|user| {
                vec![
                    Value::text(&user.name),
                    Value::integer(user.user_id as i64),
                    Value::text(if user.locked_since.is_some() {
                        "LOCKED"
                    } else {
                        "OPEN"
                    }),
                    user.locked_since.map_or(Value::Null, Value::Date),
                    Value::Date(user.created),
                    Value::text(if user.verifier.is_some() {
                        "PASSWORD"
                    } else {
                        "NONE"
                    }),
                ]
            })
            .collect(),
    );
    Ok(rowset(&columns, rows))
}

/// ALL_USERS.
fn all_users(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let users = dictionary.users.values();
    let (columns, rows): (Vec<ViewColumn>, Vec<Vec<Value>>) = (
        vec![
            ("USERNAME", text()),
            ("USER_ID", number()),
            ("CREATED", date()),
        ],
        users
            .map(|user| {
                vec![
                    Value::text(&user.name),
                    Value::integer(user.user_id as i64),
                    Value::Date(user.created),
                ]
            })
            .collect(),
    );
    Ok(rowset(&columns, rows))
}

/// DBA_SYS_PRIVS.
fn dba_sys_privs(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let users = dictionary.users.values();
    let (columns, rows): (Vec<ViewColumn>, Vec<Vec<Value>>) = (
        vec![
            ("GRANTEE", text()),
            ("PRIVILEGE", Some(DataType::varchar2(40))),
            ("ADMIN_OPTION", Some(DataType::varchar2(3))),
        ],
        users
            .flat_map(|user| {
                user.system_privileges.keys().map(|privilege| {
                    vec![
                        Value::text(&user.name),
                        Value::text(privilege),
                        Value::text("NO"),
                    ]
                })
            })
            .collect(),
    );
    Ok(rowset(&columns, rows))
}

/// DBA_TAB_PRIVS.
fn dba_tab_privs(context: &ViewContext) -> Result<RowSet> {
    let dictionary = context.dictionary;
    let users = dictionary.users.values();
    let (columns, rows): (Vec<ViewColumn>, Vec<Vec<Value>>) = (
        vec![
            ("GRANTEE", text()),
            ("OWNER", text()),
            ("TABLE_NAME", text()),
            ("GRANTOR", text()),
            ("PRIVILEGE", Some(DataType::varchar2(40))),
            ("GRANTABLE", Some(DataType::varchar2(3))),
            ("TYPE", Some(DataType::varchar2(24))),
        ],
        users
            .flat_map(|user| {
                user.table_privileges
                    .iter()
                    .filter_map(|((table_id, privilege), (grantor, _))| {
                        let (name, kind) = dictionary.privilege_object_by_id(*table_id)?;
                        let grantor = dictionary
                            .user_by_id(*grantor)
                            .map_or(Value::Null, |grantor| Value::text(&grantor.name));
                        Some(vec![
                            Value::text(&user.name),
                            Value::text(OWNER),
                            Value::text(&name),
                            grantor,
                            Value::text(privilege),
                            Value::text("NO"),
                            Value::text(kind),
                        ])
                    })
                    .collect::<Vec<_>>()
            })
            .collect(),
    );
    Ok(rowset(&columns, rows))
}

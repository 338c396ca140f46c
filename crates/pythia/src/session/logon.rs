//! How a session begins: the embedded API's local logon (`Instance::connect`) and a
//! client's (`Instance::logon`). They are the instance's calls, written here because a
//! session is what they make: the instance decides who may log on
//! (`instance::logon`, `authorize`), and knows nothing of sessions.

use std::sync::Arc;

use super::Session;
use crate::error::Result;
use crate::instance::Instance;

impl Instance {
    /// A new session on this instance, as SYSTEM: the local logon of whoever can open the
    /// database's files (Oracle's `/ as sysdba`), with no password asked and no account
    /// check. Clients over the network go through [`Instance::logon`].
    pub fn connect(self: &Arc<Self>) -> Result<Session> {
        Session::new(self.clone(), crate::catalog::users::SYSTEM_USER)
    }

    /// A session for the user a client names, once it has authenticated (or in trust mode):
    /// ORA-01017 when there is no such user, ORA-28000 when its account is locked, ORA-01045
    /// when it lacks CREATE SESSION; ORA-00020 / ORA-00018 beyond `processes` / `sessions`.
    /// A failure is written to the alert log (`logon_failed`), with `client` naming who
    /// tried.
    pub fn logon(self: &Arc<Self>, sent: &str, client: &str) -> Result<Session> {
        let result = self
            .authorize(sent)
            .and_then(|name| Session::new(self.clone(), &name));
        if let Err(error) = &result {
            if matches!(error.code(), 1017 | 28000 | 1045) {
                self.logon_failed(sent, client, error);
            }
        }
        result
    }
}

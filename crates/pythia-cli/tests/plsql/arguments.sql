REM dba_procedures and dba_arguments: each unit's subprograms and their parameters, as the
REM source declares them.
create table acct (id number(6) primary key, owner varchar2(20));
create or replace procedure credit(p_id in acct.id%type, p_amount number default 0,
  p_note in out varchar2, p_done out boolean) authid current_user is
begin
  p_done := true;
end;
/
create or replace function rate(p_kind pls_integer) return number deterministic is
begin
  return p_kind / 100;
end;
/
create or replace package bank is
  procedure open_account(p_owner varchar2);
  procedure open_account(p_owner varchar2, p_id out number);
  function balance(p_id number) return number;
end bank;
/
column object_name format a12
column procedure_name format a14
column overload format a8
column argument_name format a10
column package_name format a8
column data_type format a18
column pls_type format a12
select object_name, procedure_name, subprogram_id, overload, object_type, deterministic, authid
from user_procedures order by object_name, subprogram_id;
select package_name, object_name, overload, argument_name, position, sequence, data_type,
       defaulted, in_out, pls_type
from user_arguments order by package_name nulls first, object_name, overload, sequence;
REM A dropped unit leaves none.
drop function rate;
select count(*) from user_arguments where object_name = 'RATE';

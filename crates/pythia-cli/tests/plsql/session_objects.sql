REM v$session's PL/SQL objects: the first stored unit a call entered, and the one running.
set serveroutput on
create procedure inner_p(n out number, m out number) is
begin
  select plsql_entry_object_id, plsql_object_id into n, m from v$session
   where sid = (select sid from v$mystat where rownum = 1);
end;
/
create procedure outer_p is
  n number;
  m number;
  outer_id number;
  inner_id number;
begin
  inner_p(n, m);
  select object_id into outer_id from user_objects where object_name = 'OUTER_P';
  select object_id into inner_id from user_objects where object_name = 'INNER_P';
  dbms_output.put_line('entry is OUTER_P: ' || case when n = outer_id then 'yes' else 'no' end);
  dbms_output.put_line('current is INNER_P: ' || case when m = inner_id then 'yes' else 'no' end);
end;
/
exec outer_p
select count(*) from v$session where plsql_object_id is not null;

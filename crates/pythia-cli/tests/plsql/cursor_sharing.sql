REM CURSOR_SHARING = FORCE (seed 004): a top-level CALL's literals become binds, an anonymous
REM block's stay as written, and the SQL inside PL/SQL, which has binds already, is not touched.
create table calls (k varchar2(10), n number);
create procedure note_call(k varchar2, n number) is
begin
  insert into calls values (k, n);
  insert into calls values (k || 'x', 7);
end;
/
alter session set cursor_sharing = force;
call note_call('a', 1);
call note_call('b', 2);
begin note_call('c', 3); end;
/
select sql_text from v$sql
 where lower(sql_text) like 'call note_call%' or lower(sql_text) like 'begin note_call%'
    or sql_text like 'INSERT INTO CALLS%'
 order by sql_text;
select k, n from calls order by k;

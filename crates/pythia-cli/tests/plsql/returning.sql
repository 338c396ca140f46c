REM Static DML with RETURNING ... INTO, and the names of INSERT ... VALUES.
set serveroutput on
create table w (id number primary key, ytd number, name varchar2(10));
insert into w values (1, 100, 'one');
insert into w values (2, 200, 'two');
commit;

declare
  n number;
  nm varchar2(10);
  k number;
begin
  update w set ytd = ytd + 5 where id = 1 returning ytd, name into n, nm;
  dbms_output.put_line('updated ' || n || ' ' || nm || ', ' || sql%rowcount || ' row');
  insert into w values (3, 300, 'three') returning ytd * 2, id into n, k;
  dbms_output.put_line('inserted ' || n || ' ' || k);
  delete from w where id = 2 returning name into nm;
  dbms_output.put_line('deleted ' || nm);
  update w set ytd = 0 where id = 99 returning ytd into n;
  dbms_output.put_line('no row: ' || nvl(to_char(n), 'null') || ', ' || sql%rowcount || ' rows');
  update w set ytd = ytd + 1 returning ytd into n;
exception
  when too_many_rows then
    dbms_output.put_line('two rows: ' || sqlerrm);
end;
/
rollback;

REM RETURNING needs INTO, as many targets as values.
update w set ytd = 1 returning ytd;
declare
  n number;
begin
  update w set ytd = 1 returning ytd, id into n;
end;
/

REM In VALUES a name is the variable's, even where the table has a column of that name.
create table t (a number, b number);
declare
  a number := 1;
  b number := 5;
begin
  insert into t (a, b) values (a, b + 1);
  insert into t values (a * 10, b);
end;
/
select a, b from t order by a;
select sql_text from v$sql where sql_text like 'INSERT INTO T %' order by sql_text;

set serveroutput on
create table t (id number primary key, name varchar2(20));
insert into t values (1, 'one');
insert into t values (2, 'two');
commit;
declare
  n number := 0;
  s varchar2(100);
  i pls_integer;
begin
  for i in 1..5 loop
    n := n + i;
  end loop;
  dbms_output.put_line('sum=' || n);
  select name into s from t where id = 2;
  dbms_output.put_line('name=' || s);
  update t set name = upper(name) where id <= n;
  dbms_output.put_line('updated ' || sql%rowcount);
  begin
    select name into s from t where id = 99;
  exception
    when no_data_found then dbms_output.put_line('none: ' || sqlcode || ' ' || sqlerrm);
  end;
  for r in (select id, name from t order by id) loop
    dbms_output.put_line(r.id || ' ' || r.name);
  end loop;
end;
/
select * from t;
begin
  raise_application_error(-20001, 'boom');
end;
/
select sql_text, executions from v$sql where sql_text like 'SELECT NAME FROM T%' or sql_text like 'UPDATE T%';

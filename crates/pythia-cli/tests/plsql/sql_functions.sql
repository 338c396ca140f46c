REM Stored functions called from SQL: in select lists, WHERE clauses and UPDATE's SET, with
REM their own queries and package state; a function a query calls may not change data.
set serveroutput on
create table t (id number primary key, v varchar2(20));
insert into t values (1, 'one');
insert into t values (2, 'two');
insert into t values (3, 'three');
commit;
create function twice(x number) return number deterministic is begin return 2 * x; end;
/
create function label(x number) return varchar2 is
  r t.v%type;
begin
  select v into r from t where id = x;
  return upper(r);
end;
/
create function bad_writer(x number) return number is
begin
  insert into t values (x + 100, 'x');
  return x;
end;
/
create package pk is
  hits number := 0;
  function hit(x number) return number;
end;
/
create package body pk is
  function hit(x number) return number is begin hits := hits + 1; return hits; end;
end;
/
select id, twice(id), label(id) from t where twice(id) > 2 order by id;
select bad_writer(1) from dual;
select pk.hit(id) from t order by id;
exec dbms_output.put_line('hits ' || pk.hits)
declare n number; begin select count(*) into n from t where twice(id) = 4; dbms_output.put_line('n ' || n); end;
/
update t set v = label(id) || '!' where twice(id) = 6;
select v from t where id = 3;
select nosuch(1) from dual;

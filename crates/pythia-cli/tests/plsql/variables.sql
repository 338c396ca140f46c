REM SQL*Plus's bind variables: VARIABLE, :x in blocks, CALL and queries, PRINT; a block's
REM OUT values come back into them.
set serveroutput on
variable n number
variable msg varchar2(30)
var
create table t (id number, v varchar2(10));
insert into t values (1, 'one');
insert into t values (2, 'two');
create or replace procedure fetch_v(i number, v out varchar2) is begin select v into v from t where id = i; end;
/
begin :n := 2; end;
/
print n
exec fetch_v(:n, :msg)
print msg
select id, v from t where id = :n;
print
call fetch_v(1, :msg);
print msg
print nosuch
select :undeclared from dual;
variable n

REM Words SQL reserves and PL/SQL does not may name variables and parameters.
declare
  increment pls_integer := 2;
  comment varchar2(20) := 'noted';
begin
  increment := increment * 21;
  dbms_output.put_line(comment || ' ' || increment);
end;
/

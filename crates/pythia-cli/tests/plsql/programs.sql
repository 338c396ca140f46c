REM Stored procedures and functions: CREATE, calls with positional and named arguments,
REM defaults, OUT and IN OUT parameters, recursion, the dictionary, errors, invalidation.
set serveroutput on
create table accounts (id number primary key, owner varchar2(20), balance number);
insert into accounts values (1, 'ann', 100);
insert into accounts values (2, 'bob', 50);
commit;

create or replace procedure transfer(
  from_id in number,
  to_id in number,
  amount in number default 10,
  moved out number
) is
begin
  update accounts set balance = balance - amount where id = from_id;
  update accounts set balance = balance + amount where id = to_id;
  moved := amount;
end transfer;
/
create or replace function balance_of(account number) return number is
  result accounts.balance%type;
begin
  select balance into result from accounts where id = account;
  return result;
exception
  when no_data_found then
    return null;
end;
/
create or replace function factorial(n pls_integer) return number deterministic as
begin
  if n <= 1 then
    return 1;
  end if;
  return n * factorial(n - 1);
end;
/
declare
  moved number;
begin
  transfer(1, 2, 30, moved);
  dbms_output.put_line('moved ' || moved || ', ann has ' || balance_of(1));
  transfer(to_id => 1, from_id => 2, moved => moved);
  dbms_output.put_line('moved ' || moved || ', bob has ' || balance_of(2));
  dbms_output.put_line('nobody has ' || nvl(to_char(balance_of(99)), 'nothing'));
  dbms_output.put_line('10! = ' || factorial(10));
end;
/
rollback;

REM IN OUT: the caller's variable goes in and comes back changed.
create procedure double_it(n in out number) is
begin
  n := n * 2;
end;
/
declare
  n number := 21;
begin
  double_it(n);
  dbms_output.put_line('doubled: ' || n);
end;
/

REM CALL and EXEC run stored procedures too.
create table log_lines (line varchar2(40));
create procedure note(text varchar2) is
begin
  insert into log_lines values (text);
end;
/
call note('from call');
exec note('from exec')
select line from log_lines order by line;

REM The dictionary: the source as written, the objects, the dependencies.
select line, text from user_source where name = 'DOUBLE_IT' order by line;
select object_name, object_type, status from user_objects
 where object_type in ('PROCEDURE', 'FUNCTION') order by object_name;
select name, referenced_name, referenced_type from user_dependencies
 where name in ('TRANSFER', 'BALANCE_OF', 'FACTORIAL') order by name, referenced_name;

REM A unit that does not compile is stored INVALID with its errors.
create or replace procedure broken is
  total number;
begin
  select sum(balance) into total from no_such_table;
  undeclared_variable := total;
end;
/
show errors
select object_name, status from user_objects where object_name = 'BROKEN';
select line, position, text from user_errors where name = 'BROKEN' order by sequence;
begin
  broken;
end;
/
create or replace procedure broken is
begin
  if then
end;
/
show errors procedure broken
drop procedure broken;
drop procedure broken;

REM An unhandled error crosses the stored units with Oracle's stack; a caller's handler
REM sees SQLERRM without it.
create procedure check_positive(n number) is
begin
  if n <= 0 then
    raise_application_error(-20001, 'not positive: ' || n);
  end if;
end;
/
create procedure check_all(a number, b number) is
begin
  check_positive(a);
  check_positive(b);
end;
/
exec check_all(1, -5)
begin
  check_all(-1, 1);
exception
  when others then
    dbms_output.put_line('caught ' || sqlcode || ': ' || sqlerrm);
end;
/

REM An OUT argument keeps its value when the callee fails.
create procedure fail_after(n out number) is
begin
  n := 1;
  raise zero_divide;
end;
/
declare
  n number := 7;
begin
  fail_after(n);
exception
  when zero_divide then
    dbms_output.put_line('n is still ' || n);
end;
/

REM A function that ends without RETURN.
create function no_return(n number) return number is
begin
  null;
end;
/
begin
  dbms_output.put_line(no_return(1));
end;
/

REM Calls that do not fit the subprogram.
begin
  transfer(1);
end;
/
begin
  double_it(5);
end;
/
begin
  factorial(3);
end;
/
declare
  n number;
begin
  n := transfer(1, 2);
end;
/
create or replace procedure assigns_in(n in number) is
begin
  n := 1;
end;
/
show errors

REM DDL on a table a unit names makes it INVALID; the next call compiles it again.
create table scratch (n number);
create procedure fill_scratch is
begin
  insert into scratch values (1);
end;
/
drop table scratch;
select object_name, status from user_objects where object_name = 'FILL_SCRATCH';
exec fill_scratch
create table scratch (n number);
exec fill_scratch
select object_name, status from user_objects where object_name = 'FILL_SCRATCH';
select count(*) from scratch;

REM ALTER ... COMPILE, names in use, DROP.
alter procedure fill_scratch compile;
alter function factorial compile;
alter procedure nothing_here compile;
create procedure accounts is begin null; end;
/
create procedure transfer is begin null; end;
/
drop function factorial;
select object_name from user_objects where object_name = 'FACTORIAL';

REM A unit's static SQL in v$sql: the unit (program_id) and the line that built the cursor.
select o.object_name, s.program_line#, s.sql_text
  from v$sql s join user_objects o on o.object_id = s.program_id
 where o.object_name in ('TRANSFER', 'BALANCE_OF') order by o.object_name, s.program_line#;

REM Packages: a specification's variables, constants and subprograms, a body's private
REM state and subprograms, overloading, the initialisation section, state per session,
REM ORA-04068 after a recompilation, and their errors.
set serveroutput on
create table items (id number primary key, label varchar2(20));
insert into items values (1, 'one');
commit;

create or replace package counter is
  total number := 0;
  step constant number := 100;
  procedure bump(n number);
  procedure bump(n number, times pls_integer);
  function current_total return number;
  function label_of(id number) return varchar2;
end counter;
/
create or replace package body counter is
  calls pls_integer := 0;
  procedure note is
  begin
    calls := calls + 1;
  end;
  procedure bump(n number) is
  begin
    note;
    total := total + n;
  end;
  procedure bump(n number, times pls_integer) is
  begin
    for i in 1..times loop
      bump(n);
    end loop;
  end;
  function current_total return number is
  begin
    return total;
  end;
  function label_of(id number) return varchar2 is
    result items.label%type;
  begin
    select label into result from items where items.id = label_of.id;
    return result || ' after ' || calls || ' calls';
  end;
begin
  total := 10;
  dbms_output.put_line('counter initialised');
end counter;
/

REM The first use initialises the package; its state lasts for the session.
begin
  counter.bump(5);
  counter.bump(1, 3);
  dbms_output.put_line(counter.total || ' ' || counter.current_total || ' ' || counter.step);
  counter.total := counter.total * 2;
  dbms_output.put_line(counter.label_of(1) || ', total ' || counter.total);
end;
/
exec dbms_output.put_line('still ' || counter.total)
begin
  counter.step := 1;
end;
/
begin
  counter.note;
end;
/

REM Compiling the body again discards the session's state, once.
create or replace package body counter is
  calls pls_integer := 0;
  procedure bump(n number) is begin total := total + 2 * n; end;
  procedure bump(n number, times pls_integer) is begin null; end;
  function current_total return number is begin return total; end;
  function label_of(id number) return varchar2 is begin return 'v2'; end;
end counter;
/
exec counter.bump(1)
exec counter.bump(1)
exec dbms_output.put_line(counter.total)
select object_name, object_type, status from user_objects where object_name = 'COUNTER';
select name, type, referenced_name, referenced_type from user_dependencies
 where name = 'COUNTER' order by type, referenced_name;

REM A specification alone: its variables work, its subprograms need the body.
create or replace package settings is
  answer number := 42;
  procedure apply;
end settings;
/
exec dbms_output.put_line(settings.answer)
exec settings.apply

REM Errors: a body that does not compile, one without its specification, a subprogram the
REM specification declares and the body leaves out.
create or replace package body settings is
  procedure apply is begin undeclared := 1; end;
end;
/
show errors
exec settings.apply
create package body lonely is
  procedure p is begin null; end;
end;
/
show errors package body lonely
create or replace package body settings is
end;
/
show errors

REM DROP PACKAGE BODY keeps the specification; DROP PACKAGE drops both.
drop package body settings;
select object_name, object_type from user_objects where object_name = 'SETTINGS';
drop package settings;
select object_name, object_type from user_objects where object_name = 'SETTINGS';
drop package settings;

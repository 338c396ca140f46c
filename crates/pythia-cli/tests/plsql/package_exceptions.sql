REM A package's exceptions, named by its PRAGMA EXCEPTION_INIT: raised inside the package,
REM caught outside it as pkg.e, and by their error's number anywhere.
set serveroutput on
create or replace package accounts is
  insufficient_funds exception;
  pragma exception_init(insufficient_funds, -20101);
  procedure withdraw(balance in out number, amount number);
end accounts;
/
create or replace package body accounts is
  frozen exception;
  pragma exception_init(frozen, -20102);
  procedure withdraw(balance in out number, amount number) is
  begin
    if amount < 0 then
      raise frozen;
    end if;
    if amount > balance then
      raise insufficient_funds;
    end if;
    balance := balance - amount;
  exception
    when frozen then
      raise_application_error(-20102, 'account frozen');
  end;
end accounts;
/
show errors
declare
  b number := 100;
begin
  accounts.withdraw(b, 30);
  dbms_output.put_line('left ' || b);
  accounts.withdraw(b, 500);
exception
  when accounts.insufficient_funds then
    dbms_output.put_line('caught accounts.insufficient_funds: ' || sqlcode);
end;
/
declare
  b number := 100;
  e exception;
  pragma exception_init(e, -20102);
begin
  accounts.withdraw(b, -1);
exception
  when e then
    dbms_output.put_line('caught by number: ' || sqlerrm);
end;
/
REM Unhandled, it reaches the client as its error.
declare
  b number := 1;
begin
  accounts.withdraw(b, 2);
end;
/
REM A package exception without EXCEPTION_INIT, and a name no package declares.
create or replace package bare is
  oops exception;
end bare;
/
show errors
declare
begin
  null;
exception
  when accounts.no_such_exception then null;
end;
/

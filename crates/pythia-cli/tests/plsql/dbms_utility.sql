REM DBMS_UTILITY: GET_TIME and GET_CPU_TIME (hundredths of a second), FORMAT_ERROR_STACK and
REM FORMAT_ERROR_BACKTRACE (the handled exception's message and its ORA-06512 lines).
set serveroutput on
create procedure inner_p is begin raise_application_error(-20001, 'deep'); end;
/
create procedure outer_p is begin inner_p; end;
/
declare
  t0 number := dbms_utility.get_time;
  c0 number := dbms_utility.get_cpu_time();
  n number := 0;
begin
  for i in 1..200000 loop n := n + 1; end loop;
  dbms_output.put_line('elapsed ok: ' || case when dbms_utility.get_time - t0 >= 0 then 'yes' end);
  dbms_output.put_line('cpu ok: ' || case when dbms_utility.get_cpu_time - c0 >= 0 then 'yes' end);
  begin
    outer_p;
  exception when others then
    dbms_output.put(dbms_utility.format_error_stack);
    dbms_output.put(dbms_utility.format_error_backtrace);
    dbms_output.new_line;
  end;
  dbms_output.put_line('outside: [' || dbms_utility.format_error_stack || ']');
end;
/
select case when dbms_utility.get_time() > 0 then 'ticks' end from dual;

REM SQLERRM(code): an error's message by its SQLCODE.
begin
  dbms_output.put_line(sqlerrm(-1403));
  dbms_output.put_line(sqlerrm(100));
  dbms_output.put_line(sqlerrm(0));
  dbms_output.put_line(sqlerrm(1));
  dbms_output.put_line(sqlerrm(-1476));
  dbms_output.put_line(sqlerrm(-20001));
  dbms_output.put_line(nvl(sqlerrm(null), 'null'));
end;
/

set serveroutput on
create table k (id number primary key);
insert into k values (1);
commit;
-- Predefined, user-declared and EXCEPTION_INIT exceptions; RAISE; in a handler.
declare
  e exception;
  f exception;
  pragma exception_init(f, -20002);
  n number;
begin
  begin
    n := 1 / 0;
  exception
    when zero_divide then dbms_output.put_line('zero: ' || sqlcode);
  end;
  begin
    raise e;
  exception
    when e then dbms_output.put_line('user: ' || sqlcode || ' ' || sqlerrm);
  end;
  begin
    raise_application_error(-20002, 'two');
  exception
    when f then dbms_output.put_line('init: ' || sqlerrm);
  end;
  begin
    insert into k values (1);
  exception
    when dup_val_on_index then dbms_output.put_line('dup: ' || sqlcode);
  end;
  begin
    select id into n from k where id > 0 or id is null;
    dbms_output.put_line('one row: ' || n);
    insert into k values (2);
    select id into n from k;
  exception
    when too_many_rows or no_data_found then dbms_output.put_line('many: ' || sqlcode);
  end;
  dbms_output.put_line('outside: ' || sqlcode);
end;
/
-- An unhandled exception undoes the call's work and reports the line.
begin
  insert into k values (3);
  dbms_output.put_line('inserted 3');
  raise no_data_found;
end;
/
select id from k order by id;
declare
  e exception;
begin
  raise e;
end;
/
begin
  begin
    raise_application_error(-20001, 'inner');
  exception
    when others then
      dbms_output.put_line('caught ' || sqlcode);
      raise;
  end;
end;
/
begin
  raise_application_error(-1, 'out of range');
end;
/
-- Compilation errors.
begin
  x := 1;
end;
/
begin
  select id into n from nosuch;
end;
/
declare
  c constant number := 1;
begin
  c := 2;
end;
/
begin
  null
end;
/

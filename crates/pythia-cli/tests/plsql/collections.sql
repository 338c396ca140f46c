REM Associative arrays (TABLE OF ... INDEX BY): sparse elements, their methods, their errors.
set serveroutput on
declare
  type numbers is table of number index by pls_integer;
  type names is table of varchar2(10) index by varchar2(20);
  squares numbers;
  capitals names;
  k pls_integer;
  c varchar2(20);
begin
  for i in reverse 1 .. 5 loop
    squares(i * 10) := i * i;
  end loop;
  squares(-7) := 49;
  dbms_output.put_line('count ' || squares.count || ' first ' || squares.first || ' last ' || squares.last);
  k := squares.first;
  while k is not null loop
    dbms_output.put_line('  ' || k || ' -> ' || squares(k));
    k := squares.next(k);
  end loop;
  dbms_output.put_line('prior of 30: ' || squares.prior(30) || ', next of 50: ' || nvl(to_char(squares.next(50)), 'null'));
  dbms_output.put_line('exists 20: ' || case when squares.exists(20) then 'yes' else 'no' end
                       || ', exists 21: ' || case when squares.exists(21) then 'yes' else 'no' end);
  -- A key that is not whole is rounded, as PL/SQL converts to PLS_INTEGER.
  dbms_output.put_line('squares(19.6) = ' || squares(19.6));
  squares(20) := squares(20) + 1;
  squares.delete(30);
  squares.delete(40, 50);
  dbms_output.put_line('after deletes: ' || squares.count || ', last ' || squares.last);
  squares.delete;
  dbms_output.put_line('after delete all: ' || squares.count || ', first ' || nvl(to_char(squares.first), 'null'));
  capitals('France') := 'Paris';
  capitals('Austria') := 'Vienna';
  capitals('Peru') := 'Lima';
  c := capitals.first;
  while c is not null loop
    dbms_output.put_line('  ' || c || ': ' || capitals(c));
    c := capitals.next(c);
  end loop;
end;
/

REM A missing element is NO_DATA_FOUND; a NULL key is VALUE_ERROR.
declare
  type numbers is table of number index by binary_integer;
  a numbers;
begin
  a(1) := 1;
  dbms_output.put_line(a(2));
exception
  when no_data_found then
    dbms_output.put_line('missing: ' || sqlerrm);
end;
/
declare
  type numbers is table of number index by binary_integer;
  a numbers;
  k number;
begin
  a(k) := 1;
exception
  when value_error then
    dbms_output.put_line('null key: ' || sqlerrm);
end;
/

REM Elements convert to the element type; NOT NULL elements refuse NULL.
declare
  type short_names is table of varchar2(3) not null index by pls_integer;
  a short_names;
begin
  a(1) := 'abc';
  begin
    a(2) := 'abcd';
  exception
    when value_error then dbms_output.put_line('too long: ' || sqlerrm);
  end;
  a(3) := null;
exception
  when value_error then dbms_output.put_line('not null: ' || sqlerrm || ', count ' || a.count);
end;
/

REM Assignment copies a whole collection of the same type; a block entered again starts empty.
declare
  type numbers is table of number index by pls_integer;
  a numbers;
  b numbers;
begin
  a(1) := 10;
  a(2) := 20;
  b := a;
  a(1) := 11;
  dbms_output.put_line('copy: ' || b(1) || ' ' || b.count || ', original: ' || a(1));
  for round in 1 .. 2 loop
    declare
      c numbers;
    begin
      c(round) := round;
      dbms_output.put_line('round ' || round || ': count ' || c.count);
    end;
  end loop;
end;
/

REM What is not a collection, and what part 2 brings.
declare
  n number;
begin
  n(1) := 2;
end;
/
declare
  type numbers is table of number index by pls_integer;
  a numbers;
begin
  a.extend;
end;
/
declare
  type numbers is table of number index by pls_integer;
  a numbers;
  n number;
begin
  n := a;
end;
/
declare
  type nested is table of number;
begin
  null;
end;
/
declare
  type numbers is table of number index by date;
begin
  null;
end;
/

REM ROWID in PL/SQL: a cursor's rowids kept in a collection, the middle one's row updated by
REM its rowid (TABLE ACCESS BY USER ROWID), RETURNING what it changed.
create table client (id number primary key, surname varchar2(16), first_name varchar2(16), balance number);
insert into client values (1, 'ROE', 'MAY', 10);
insert into client values (2, 'DOE', 'JOHN', 20);
insert into client values (3, 'DOE', 'ANN', 30);
insert into client values (4, 'DOE', 'ZOE', 40);
commit;
create or replace procedure pay_by_surname(p_surname varchar2, p_amount number, p_id out number, p_balance out number) is
  type rowids is table of rowid index by binary_integer;
  found rowids;
  n binary_integer := 0;
  target rowid;
  cursor by_surname is select rowid from client where surname = p_surname order by first_name;
begin
  for r in by_surname loop
    n := n + 1;
    found(n) := r.rowid;
  end loop;
  target := found((n + 1) / 2);
  update client set balance = balance - p_amount where rowid = target
  returning id, balance into p_id, p_balance;
end;
/
show errors
declare
  id number;
  balance number;
begin
  pay_by_surname('DOE', 5, id, balance);
  dbms_output.put_line('paid client ' || id || ', balance now ' || balance);
end;
/
select id, balance from client order by id;
explain plan for update client set balance = 0 where rowid = 'AAAAAAAABAAAAAAAAA';
select * from table(dbms_xplan.display);
rollback;

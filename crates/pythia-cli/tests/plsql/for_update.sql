REM SELECT ... FOR UPDATE inside PL/SQL, and UPDATE / DELETE ... WHERE CURRENT OF a cursor.
set serveroutput on
create table stock (item number primary key, qty number);
insert into stock values (1, 5);
insert into stock values (2, 0);
insert into stock values (3, 12);
commit;

REM A cursor FOR UPDATE locks its rows at OPEN; CURRENT OF changes the row last fetched,
REM by its rowid (the cursor fetches it too, behind its own columns).
declare
  cursor low is select item, qty from stock where qty < 10 order by item for update;
  r low%rowtype;
begin
  open low;
  loop
    fetch low into r;
    exit when low%notfound;
    if r.qty = 0 then
      delete from stock where current of low;
      dbms_output.put_line('deleted ' || r.item || ': ' || sql%rowcount);
    else
      update stock set qty = qty + 10 where current of low;
      dbms_output.put_line('restocked ' || r.item || ': ' || sql%rowcount);
    end if;
  end loop;
  close low;
end;
/
select item, qty from stock order by item;

REM In a cursor FOR loop too; SELECT INTO ... FOR UPDATE locks its row.
declare
  cursor every is select item from stock for update of qty;
  q number;
begin
  for r in every loop
    update stock set qty = qty * 2 where current of every;
  end loop;
  select qty into q from stock where item = 3 for update nowait;
  dbms_output.put_line('item 3 now ' || q);
end;
/
select item, qty from stock order by item;
rollback;

REM CURRENT OF needs a cursor declared FOR UPDATE.
declare
  cursor plain is select item from stock;
begin
  for r in plain loop
    update stock set qty = 0 where current of plain;
  end loop;
end;
/
declare
begin
  update stock set qty = 0 where current of nowhere;
end;
/

REM Cursor variables are not built yet: a clear restriction, not an unknown name.
declare
  rc sys_refcursor;
begin
  null;
end;
/

set serveroutput on
create table c (n number, s varchar2(10));
insert into c values (1, 'a');
insert into c values (2, 'b');
insert into c values (3, 'c');
commit;
declare
  total pls_integer := 0;
  i number := 0;
  s varchar2(3);
  t c%rowtype;
  type pair is record (a number, b varchar2(10));
  p pair;
  q pair;
  cursor k(low number) is select n, s from c where n >= low order by n;
  v c.s%type;
  b boolean := true;
begin
  <<outer>>
  for i in 1..3 loop
    for j in reverse 1..3 loop
      continue when j = 2;
      exit outer when i = 3;
      total := total + i * j;
    end loop;
  end loop outer;
  dbms_output.put_line('total ' || total);
  while i < 5 loop
    i := i + 1;
  end loop;
  loop
    i := i - 1;
    exit when i <= 2;
  end loop;
  dbms_output.put_line('i ' || i);
  case i
    when 1 then dbms_output.put_line('one');
    when 2 then dbms_output.put_line('two');
  end case;
  case when i > 1 then s := 'big'; else s := 'sml'; end case;
  dbms_output.put_line(s || ' ' || case when b then 'yes' else 'no' end);
  open k(2);
  loop
    fetch k into t;
    exit when k%notfound;
    dbms_output.put_line(k%rowcount || ': ' || t.n || t.s);
  end loop;
  close k;
  for r in k(3) loop
    v := r.s;
  end loop;
  dbms_output.put_line('v ' || v || ' open ' || case when k%isopen then 'y' else 'n' end);
  p.a := 1; p.b := 'x';
  q := p;
  dbms_output.put_line('q ' || q.a || q.b);
  select n, s into p from c where n = 2;
  dbms_output.put_line('p ' || p.a || p.b);
  goto done;
  dbms_output.put_line('skipped');
  <<done>>
  s := 'abcd';
exception
  when value_error then dbms_output.put_line('value_error: ' || sqlerrm);
end;
/
begin
  case 9 when 1 then null; end case;
end;
/
begin
  for i in 1..2 loop
    dbms_output.put_line('line ' || i);
    dbms_lock.sleep(0.01);
  end loop;
end;
/
exec dbms_output.put_line('exec works')

REM A package in the style of seed 001's harness (its bcX, written anew here): package
REM state for a linear congruential key generator, a procedure that reads rows by the
REM generated keys through a cursor with a %TYPE parameter, and a function that reads the
REM session's own statistics from v$mystat, called from an anonymous block as the seed's
REM script does.
set serveroutput on
create table lookup_tbl (id_col number primary key, data_col varchar2(20));
create table large_tbl (id_col number primary key, id_col2 number, data_col varchar2(40));
insert into lookup_tbl select n, 'lookup ' || n from generate_series(0, 9) as n;
insert into large_tbl select n, mod(n, 10), rpad('x', 30, 'x') from generate_series(0, 996) as n;
commit;

create or replace package bcx is
  rand_seed integer := 1;
  procedure set_rand(seed_in integer, multiplier_in integer, step_in integer);
  function next_key return integer;
  procedure buffer_stuffer(buffs_per_stuff_in in integer, sleep_secs_in in number,
                           total_stuffs_in in integer, seed_in in integer := rand_seed);
  function mystat(stat_name_in varchar2) return number;
  stuffed integer := 0;
end bcx;
/
create or replace package body bcx is
  multiplier integer := 1;
  step integer := 1;
  modulus constant integer := 997;
  current_key integer := 0;

  procedure set_rand(seed_in integer, multiplier_in integer, step_in integer) is
  begin
    rand_seed := seed_in;
    multiplier := multiplier_in;
    step := step_in;
    current_key := mod(seed_in, modulus);
  end;

  function next_key return integer is
  begin
    current_key := mod(current_key * multiplier + step, modulus);
    return current_key;
  end;

  procedure buffer_stuffer(buffs_per_stuff_in in integer, sleep_secs_in in number,
                           total_stuffs_in in integer, seed_in in integer := rand_seed) is
    cursor large_tbl_cur (cur_id_col large_tbl.id_col%type) is
      select a.data_col data1, b.data_col data2
        from large_tbl a, lookup_tbl b
       where a.id_col = cur_id_col
         and a.id_col2 = b.id_col;
    row_in large_tbl_cur%rowtype;
  begin
    if seed_in <> rand_seed then
      current_key := mod(seed_in, modulus);
    end if;
    for stuff in 1 .. total_stuffs_in loop
      for buff in 1 .. buffs_per_stuff_in loop
        open large_tbl_cur(next_key);
        fetch large_tbl_cur into row_in;
        if large_tbl_cur%found then
          stuffed := stuffed + 1;
        end if;
        close large_tbl_cur;
      end loop;
      dbms_lock.sleep(sleep_secs_in);
    end loop;
  end;

  function mystat(stat_name_in varchar2) return number is
    value_out number;
  begin
    select m.value into value_out
      from v$mystat m, v$statname n
     where m.statistic# = n.statistic#
       and n.name = stat_name_in;
    return value_out;
  end;
end bcx;
/
show errors

declare
  gets_before integer := bcx.mystat('consistent gets');
  keys varchar2(100);
begin
  bcx.set_rand(14406, 967, 3041);
  for i in 1 .. 5 loop
    keys := keys || bcx.next_key || ' ';
  end loop;
  dbms_output.put_line('first keys: ' || keys);
  bcx.set_rand(14406, 967, 3041);
  bcx.buffer_stuffer(10, 0, 5);
  dbms_output.put_line('rows stuffed: ' || bcx.stuffed);
  dbms_output.put_line('consistent gets grew: '
    || case when bcx.mystat('consistent gets') - gets_before >= 100 then 'yes' else 'no' end);
end;
/
REM The package's state is the session's: it goes on from where the last call left it.
begin
  bcx.buffer_stuffer(1, 0, 3);
  dbms_output.put_line('rows stuffed: ' || bcx.stuffed);
end;
/
REM Kept in the shared pool as seed 000 keeps its package: DBMS_SHARED_POOL.KEEP(name, 'P').
exec dbms_shared_pool.keep('BCX', 'P')
select name, namespace, type, kept from v$db_object_cache where name = 'BCX' order by namespace;
exec dbms_shared_pool.unkeep('BCX', 'P')
select name, namespace, kept from v$db_object_cache where name = 'BCX' order by namespace;
exec dbms_shared_pool.keep('NO_SUCH_UNIT', 'P')

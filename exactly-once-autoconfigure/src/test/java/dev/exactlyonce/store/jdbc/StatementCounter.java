package dev.exactlyonce.store.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

/**
 * Counts the statements prepared on a data source's connections whose SQL names a table: what the
 * database is asked to run, seen between the store and the driver (the store prepares every
 * statement it runs); and the transactions committed on them.
 */
final class StatementCounter {

	private final String table;

	private final AtomicLong statements = new AtomicLong();

	private final AtomicLong commits = new AtomicLong();

	/**
	 * Creates a counter.
	 * @param table the table whose statements are counted
	 */
	StatementCounter(String table) {
		this.table = table.toLowerCase(Locale.ROOT);
	}

	/**
	 * A data source handing out {@code target}'s connections, whose prepared statements are counted.
	 * @param target the data source
	 * @return the counting data source
	 */
	DataSource counting(DataSource target) {
		return proxy(DataSource.class, (method, args) -> {
			Object result = invoke(target, method, args);
			return method.getName().equals("getConnection") ? counting((Connection) result) : result;
		});
	}

	/**
	 * The statements prepared so far that name the table.
	 * @return the count
	 */
	long count() {
		return this.statements.get();
	}

	/**
	 * The transactions committed so far (not the statements that commit on their own).
	 * @return the count
	 */
	long commits() {
		return this.commits.get();
	}

	private Connection counting(Connection target) {
		return proxy(Connection.class, (method, args) -> {
			if (method.getName().equals("commit")) {
				this.commits.incrementAndGet();
			}
			if (method.getName().startsWith("prepare") && args[0] instanceof String sql
					&& sql.toLowerCase(Locale.ROOT).contains(this.table)) {
				this.statements.incrementAndGet();
			}
			return invoke(target, method, args);
		});
	}

	private static <T> T proxy(Class<T> type, Call call) {
		InvocationHandler handler = (proxy, method, args) -> call.on(method, args);
		return type.cast(Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] { type },
				handler));
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/** A call made on a proxy. */
	private interface Call {

		Object on(Method method, Object[] args) throws Throwable;

	}

}
